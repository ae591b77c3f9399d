// @evals/core/process: what every agent runner needs to start a CLI hermetic and leave nothing behind.
// A subpath of its own: the root export stays free of child processes and the file system's temp dirs.
export {
  type FindInstalledBinOptions,
  findInstalledBin,
  type InstalledBin,
  installedPackageVersion,
  isExecutable,
} from "./installed-bin.js";
export {
  isAlive,
  type KillTreeOptions,
  killProcessTree,
  listProcesses,
  type ProcessInfo,
  processStartTime,
  RUN_MARKER_ENV,
  runProcesses,
} from "./process-tree.js";
export {
  cleanupLeftoverRuns,
  cleanupLeftoverRunsOnce,
  type GuardedRun,
  guardRun,
  type LeftoverReport,
  type RunLock,
  runLocksDir,
} from "./run-guard.js";
export { createSandbox, keepOrRemoveSandbox, type Sandbox, safeName } from "./sandbox.js";
export {
  applyEnvOverrides,
  INHERITED_ENV,
  inheritedEnv,
  isLoopbackUrl,
  NETWORK_ENV,
  stableEnv,
  stableLocale,
} from "./sandbox-env.js";
export {
  type CliStopReason,
  MAX_PROMPT_ARG_BYTES,
  type SandboxedCli,
  type SandboxedCliExit,
  type SandboxedCliOptions,
  spawnSandboxedCli,
} from "./sandboxed-cli.js";
export {
  guardUntilExit,
  WATCHDOG_MARKER_ENV,
  type WatchdogEntry,
  type WatchdogGuard,
  watchdogPid,
} from "./watchdog.js";
