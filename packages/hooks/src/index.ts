// @evals/hooks: capture every Claude Code hook event to JSONL, register the capture, read it back.

// Kept for users of @evals/hooks: the inference lives in @evals/core (runFromHookEvents applies it).
export { inferPermissionDenials } from "@evals/core";
export {
  type CaptureContext,
  type CaptureOutcome,
  captureHookEvent,
  captureHookInput,
  chooseRunId,
} from "./capture.js";
export { DEFAULT_HOOK_LIMITS, type HookLimits, hookLimitsFromEnv } from "./config.js";
export {
  CAPTURABLE_HOOK_EVENTS,
  DEFAULT_HOOK_EVENTS,
  type HookEventName,
  OPTIONAL_HOOK_EVENTS,
  TOOL_HOOK_EVENTS,
} from "./events.js";
export { HOOK_ERROR_VERSION, type HookErrorEntry, type HookErrorKind } from "./hook-errors.js";
export {
  EVENTS_FILE,
  HOOK_ERRORS_FILE,
  isSafeRunId,
  MAX_RUN_ID_LENGTH,
  OUTPUT_FOLDER,
  type OutputEnv,
  outputRoot,
  RESERVE_BYTES,
  RESERVE_FILE,
  runDirFor,
  runIdProblem,
  TOOL_CALLS_FILE,
} from "./paths.js";
export {
  CaptureNotFoundError,
  getToolCalls,
  getToolSequence,
  type ReadEventsOptions,
  type ReadOptions,
  type ReadRunOptions,
  type RunLookupOptions,
  readEvents,
  readHookErrors,
  readRun,
  readToolCallEntries,
} from "./read.js";
export {
  HookErrorEntrySchema,
  type HookFileFormatName,
  hookFileFormats,
  hookJsonSchemaFor,
} from "./schemas.js";
export { hookSeq } from "./seq.js";
export {
  type ClaudeHookCommand,
  type ClaudeHookMatcher,
  type ClaudeSettings,
  DEFAULT_HOOK_TIMEOUT_SECONDS,
  findDash,
  HOOK_BIN_FILE,
  HOOK_SHELL_FILE,
  type HookSettingsOptions,
  hookBinPath,
  hookSettings,
  hookShellPath,
  PLUGIN_HOOK_COMMAND,
  pluginHooksFile,
  shellQuote,
  writeHookSettings,
} from "./settings.js";
export {
  DEFAULT_MAX_FIELD_BYTES,
  TRUNCATED_KEY,
  TRUNCATION_MARKER,
  truncateLargeFields,
} from "./truncate.js";
