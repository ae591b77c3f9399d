// The public API of @evals/hooks: each statement names what one module publishes, and nothing else of
// the package is public. The whole surface as published (declarations and types) is checked in as
// api/<name>.api.md (API Extractor); `npm run api` writes it again after a change.
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
// The HTTP collector: Claude Code's HTTP hooks post each event to it, in this process.
export {
  COLLECTOR_STATUS,
  type HookCollector,
  type HookCollectorOptions,
  startHookCollector,
} from "./collector.js";
export { DEFAULT_HOOK_LIMITS, type HookLimits, hookLimitsFromEnv } from "./config.js";
// The Claude Code hook events the capture hook is registered for.
export {
  CAPTURABLE_HOOK_EVENTS,
  DEFAULT_HOOK_EVENTS,
  OPTIONAL_HOOK_EVENTS,
  STREAM_GAP_HOOK_EVENTS,
  STREAM_GAP_TOOL_MATCHER,
  TOOL_HOOK_EVENTS,
  TRANSCRIPT_HOOK_EVENTS,
} from "./events.js";
export { HOOK_ERROR_VERSION, type HookErrorEntry, type HookErrorKind } from "./hook-errors.js";
// Whether a capture lost events the CLI fired.
export {
  describeLostEvents,
  type LostHookEvent,
  type LostHookEventsInput,
  lostHookEvents,
} from "./lost-events.js";
export { EVENTS_FILE, RESERVE_BYTES, RESERVE_FILE } from "./paths.js";
export {
  CaptureNotFoundError,
  getToolCalls,
  getToolSequence,
  type ReadEventsOptions,
  type ReadOptions,
  type RunLookupOptions,
  readEvents,
  readHookErrors,
  readStoredRun,
  readToolCallEntries,
} from "./read.js";
export {
  HookErrorEntrySchema,
  type HookFileFormatName,
  hookFileFormats,
  hookJsonSchemaFor,
} from "./schemas.js";
// The `seq` of a captured line:
export { hookSeq } from "./seq.js";
export {
  type ClaudeHookCommand,
  type ClaudeHookHttp,
  type ClaudeHookMatcher,
  type ClaudeSettings,
  DEFAULT_HTTP_HOOK_TIMEOUT_SECONDS,
  findDash,
  type HookSettingsOptions,
  HTTP_HOOKS_MIN_VERSION,
  type HttpHookSettingsOptions,
  hookBinPath,
  hookSettings,
  hookShellPath,
  httpHookSettings,
  PLUGIN_HOOK_COMMAND,
  pluginHooksFile,
  shellQuote,
  supportsHttpHooks,
  writeHookSettings,
} from "./settings.js";
// Keeps captured lines bounded.
export { truncateLargeFields } from "./truncate.js";
