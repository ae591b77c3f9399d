// The public API of @evals/opencode: each statement names what one module publishes, and nothing else of
// the package is public. The whole surface as published (declarations and types) is checked in as
// api/<name>.api.md (API Extractor); `npm run api` writes it again after a change.
// @evals/opencode: run the real OpenCode CLI headless and hermetic, and turn what it did into the
// same @evals/core Run as a Claude Code run.

// The stream -> Run builder and the stream's types live in @evals/core (so `evals grade` reads an
// OpenCode run without this package); re-exported here as before.
export {
  type BuildOpenCodeRunInput,
  buildOpenCodeRun,
  exportedParts,
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
export { findOpenCode } from "./bin.js";
export { capturePluginSource } from "./capture-plugin.js";
// Rewrites for @evals/vcr's `replaying(file, { replace })` that make an OpenCode request match its recording ...
export { OPENCODE_CASSETTE_REPLAY, OPENCODE_REPLAY_REPLACE } from "./replay.js";
export {
  type RunOpenCodeOptions,
  type RunOpenCodeResult,
  runOpenCode,
  UnknownAgentError,
} from "./run-opencode.js";
export { type OpenCodeOptions, OpenCodeOptionsSchema, openCodeOptions, openCodeRunner } from "./runner.js";
