// The public API of @evals/gemini-cli: each statement names what one module publishes, and nothing else of
// the package is public. The whole surface as published (declarations and types) is checked in as
// api-report.md beside package.json; `npm run api` writes it again after a change.
// @evals/gemini-cli: run the real Gemini CLI headless and hermetic, and turn what it did into the
// same @evals/core Run as a Claude Code run.

export { findGemini, GeminiNotFoundError, GeminiVersionError, SUPPORTED_GEMINI_VERSION } from "./bin.js";
export {
  type BuildGeminiRunInput,
  buildGeminiRun,
  type GeminiAfterTool,
  type GeminiOutputOptions,
  type GeminiRunnerStop,
  type GeminiStreamEvent,
  parseGeminiOutput,
  parseGeminiStream,
  runFromGeminiOutput,
  shellExitCode,
} from "./gemini-run.js";
export {
  costOf,
  GEMINI_PRICES,
  type GeminiModelPrice,
  type GeminiPricing,
  type GeminiStats,
} from "./pricing.js";
export {
  DEFAULT_GEMINI_MODEL,
  GEMINI_HOOKS_FILE,
  type GeminiApprovalMode,
  hermeticSettings,
  type RunGeminiOptions,
  type RunGeminiResult,
  runGemini,
} from "./run-gemini.js";
export {
  type GeminiOptions,
  GeminiOptionsSchema,
  geminiRunner,
  geminiRunOptions,
} from "./runner.js";
export { GEMINI_TOOL_NAMES, geminiToolInput, geminiToolName, geminiToolsFor } from "./vocabulary.js";
