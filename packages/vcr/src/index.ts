// The public API of @evals/vcr: each statement names what one module publishes, and nothing else of
// the package is public. The whole surface as published (declarations and types) is checked in as
// api/<name>.api.md (API Extractor); `npm run api` writes it again after a change.

// Redaction lives in @evals/core (one redactor for every file the framework writes); re-exported here so that...
export { createRedactor, REDACTED, type RedactOptions, type Redactor, SECRET_HEADERS } from "@evals/core";
export {
  CassetteMissingError,
  type CassetteOptions,
  type CassetteOutcome,
  cassette,
  type LiveRun,
  playCassette,
  type RunAgentLikeOptions,
  type WithCassetteOptions,
  withCassette,
} from "./cassette.js";
export {
  type BuildCassetteOptions,
  buildCassette,
  type Cassette,
  type CassetteIdentity,
  CassetteSchema,
  cassetteKey,
  cassettePath,
  identityMismatch,
  parseCassette,
  readCassette,
  siblingCassettes,
  slug,
  writeCassette,
} from "./cassette-file.js";
// A readable structural diff of two JSON values:
export { type Difference, diffValues, formatDifference, formatDifferences } from "./diff.js";
// The Gemini API as the gemini CLI speaks it (types, wire encoding) and its scripted model:
export {
  type GeminiContent,
  type GeminiErrorReply,
  type GeminiFunctionCall,
  type GeminiFunctionResponse,
  type GeminiMessageReply,
  type GeminiPart,
  type GeminiReply,
  type GeminiRequest,
  type GeminiUsage,
  geminiAnswerParts,
  geminiErrorBody,
} from "./gemini-api.js";
export {
  countFunctionResponses,
  exampleFromSchema,
  functionCalls,
  functionResponses,
  type GeminiScriptContext,
  type GeminiScriptFunction,
  geminiError,
  geminiFunctionCall,
  geminiPrompt,
  geminiReply,
  geminiStall,
  geminiText,
  isJsonSchemaRequest,
  lastFunctionResponse,
  offersFunction,
  scriptedGemini,
} from "./gemini-script.js";
export { answerBlocks, recordingIntegrityProblem } from "./integrity.js";
export { type VcrFileFormatName, vcrFileFormats, vcrJsonSchemaFor } from "./json-schemas.js";
// The slice of the Anthropic Messages API that the claude CLI speaks, as plain types.
export type {
  MessagesRequest,
  ModelErrorReply,
  ModelMessageReply,
  ModelReply,
  ReplyContentBlock,
  ReplyUsage,
  RequestContentBlock,
  RequestMessage,
  TextBlock,
  ThinkingBlock,
  ToolResultBlock,
  ToolUseBlock,
} from "./messages-api.js";
export { type ModelServer, type ModelServerOptions, startModelServer } from "./model-server.js";
// VCR modes, shared by tool-level cassettes and wire-level recordings:
export { modePlan, resolveVcrMode, VCR_MODES, type VcrMode } from "./modes.js";
export { canRefuseNetwork, networkRefused } from "./network-refused.js";
export {
  canonicalKey,
  claudeVersionOf,
  type NormalizedRequest,
  type NormalizeOptions,
  normalizeRequest,
  type RequestEnvironment,
  requestEnvironment,
  VERSION_DEPENDENT_FIELDS,
  versionNeutral,
} from "./normalize.js";
export {
  ANTHROPIC_API_URL,
  apiKeyEnv,
  failedRecording,
  GEMINI_API_URL,
  isLoopbackUrl,
  type PassthroughOptions,
  passthrough,
  type RecordingSource,
  type RecordingSourceOptions,
  recording,
} from "./record-source.js";
export {
  parseRecording,
  type RecordedInteraction,
  RecordedInteractionSchema,
  type Recording,
  RecordingSchema,
  readRecording,
  recordedRequest,
  responsesDigest,
} from "./recording.js";
export {
  type Divergence,
  RecordingIntegrityError,
  type ReplayOptions,
  type ReplaySource,
  replaying,
} from "./replay-source.js";
// The OpenAI Responses API (the Codex CLI's): types, a scripted model and its builders and readers.
export type {
  ResponsesCustomToolCallItem,
  ResponsesErrorReply,
  ResponsesFunctionCallItem,
  ResponsesInputItem,
  ResponsesModelReply,
  ResponsesOutputItem,
  ResponsesReasoningItem,
  ResponsesReply,
  ResponsesRequest,
  ResponsesTextItem,
  ResponsesUsage,
} from "./responses-api.js";
export {
  addFile,
  applyPatch,
  customToolCall,
  deleteFile,
  execCommand,
  functionCall,
  lastToolOutput,
  offersTool,
  outputText,
  type ResponsesScriptFunction,
  response,
  responsesError,
  scriptedResponses,
  type ToolOutput,
  toolOutputs,
  updateFile,
  userPrompt,
} from "./responses-script.js";
export {
  apiError,
  countToolResults,
  firstUserText,
  hasTool,
  isSubagentRequest,
  lastToolResult,
  lastUserText,
  reply,
  stall,
  systemText,
  text,
  thinking,
  toolResults,
  toolUse,
  toolUses,
} from "./script-helpers.js";
export { describeThrown, type ScriptContext, type ScriptFunction, scripted } from "./scripted-source.js";
export {
  type BufferedSourceResponse,
  type Interaction,
  isModelPath,
  type ModelApi,
  type ModelSource,
  modelApiOfPath,
  type SourceContext,
  type SourceResponse,
  type StreamedSourceResponse,
  type WireRequest,
  type WireResponse,
} from "./wire.js";
export {
  asReplayed,
  type FoundRecording,
  findRecording,
  ReplayDivergenceError,
  recordingPath,
  type WireCassetteOptions,
  type WireCassetteOutcome,
  type WireSource,
  type WireSourceOptions,
  wireCassette,
  wireSource,
} from "./wire-mode.js";
