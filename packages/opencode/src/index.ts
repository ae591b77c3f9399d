// @evals/opencode: run the real OpenCode CLI headless and hermetic, and turn what it did into the
// same @evals/core Run as a Claude Code run.

export {
  findOpenCode,
  findRipgrepDir,
  OpenCodeNotFoundError,
  SUPPORTED_OPENCODE_VERSION,
} from "./bin.js";
export {
  type BuildOpenCodeRunInput,
  buildOpenCodeRun,
  type OpenCodeChildSession,
  type RunnerStop,
} from "./build-run.js";
export { CAPTURE_ENV, CAPTURE_PLUGIN_FILE, capturePluginSource } from "./capture-plugin.js";
export { OPENCODE_REPLAY_REPLACE } from "./replay.js";
export {
  OPENCODE_PRIMARY_AGENTS,
  type RunOpenCodeOptions,
  type RunOpenCodeResult,
  runOpenCode,
  UnknownAgentError,
} from "./run-opencode.js";
export {
  exportedParts,
  isStreamLine,
  type OpenCodeError,
  type OpenCodeExport,
  type OpenCodePart,
  type OpenCodeStreamLine,
  type OpenCodeTokens,
  type OpenCodeToolState,
  partsOf,
} from "./stream.js";
