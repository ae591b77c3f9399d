// The public API of @evals/codex: run the real Codex CLI headless and hermetic against a loopback
// OpenAI Responses API, and turn what it did into the same @evals/core Run as a Claude Code run.

export { CodexNotFoundError, CodexVersionError, findCodex, SUPPORTED_CODEX_VERSION } from "./bin.js";
export {
  type CodexOptions,
  CodexOptionsSchema,
  codexConfigToml,
  DEFAULT_CODEX_MODEL,
} from "./codex-options.js";
export {
  type BuildCodexRunInput,
  buildCodexRun,
  type CodexItem,
  type CodexModelCall,
  type CodexModelItem,
  type CodexStop,
  type CodexStreamLine,
  parseCodexStream,
  runFromCodexJsonl,
} from "./codex-run.js";
export { codexRunner } from "./codex-runner.js";
export { modelItemsOf, TURN_LIMIT_MESSAGE } from "./model-tap.js";
export { type PatchOperation, parsePatch } from "./patch.js";
export { parseCodexOptions, type RunCodexResult, runCodex } from "./run-codex.js";
export type { AgentRunner, AgentRunOptions } from "./runner.js";
export {
  CODEX_TOOL_NAMES,
  codexToolInput,
  codexToolName,
  patchToolCall,
  unwrapShellCommand,
} from "./vocabulary.js";
