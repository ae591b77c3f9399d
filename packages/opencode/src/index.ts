// @evals/opencode: run the real OpenCode CLI headless and hermetic, and turn what it did into the
// same @evals/core Run as a Claude Code run.

// The stream -> Run builder and the stream's types live in @evals/core (so `evals grade` reads an
// OpenCode run without this package); re-exported here as before.
export {
  type BuildOpenCodeRunInput,
  buildOpenCodeRun,
  exportedParts,
  isOpenCodeStreamLine as isStreamLine,
  type OpenCodeChildSession,
  type OpenCodeError,
  type OpenCodeExport,
  type OpenCodePart,
  type OpenCodeStreamLine,
  type OpenCodeTokens,
  type OpenCodeToolState,
  partsOf,
  type RunnerStop,
} from "@evals/core";
export {
  findOpenCode,
  findRipgrepDir,
  OpenCodeNotFoundError,
  SUPPORTED_OPENCODE_VERSION,
} from "./bin.js";
export { CAPTURE_ENV, CAPTURE_PLUGIN_FILE, capturePluginSource } from "./capture-plugin.js";
export { OPENCODE_CASSETTE_REPLAY, OPENCODE_REPLAY_REPLACE } from "./replay.js";
export {
  OPENCODE_PRIMARY_AGENTS,
  type RunOpenCodeOptions,
  type RunOpenCodeResult,
  runOpenCode,
  UnknownAgentError,
} from "./run-opencode.js";
export { agentRunner, openCodeOptions, openCodeRunner, openCodeRunnerWith } from "./runner.js";
