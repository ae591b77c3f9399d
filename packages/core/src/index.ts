// The public API of @evals/core: each statement names what one module publishes, and nothing else of
// the package is public. The whole surface as published (declarations and types) is checked in as
// api/<name>.api.md (API Extractor); `npm run api` writes it again after a change.
export { type AgentRunResult, AgentRunResultSchema, type Scorer, type ScorerInput } from "./agent-run.js";
export {
  type AgentRunner,
  type AgentRunOptions,
  MODEL_APIS,
  type ModelApi,
  parseRunnerOptions,
  RunnerOptionsError,
  type RunnerOptionsOf,
  resolveOptionPaths,
  UnsupportedOptionError,
} from "./agent-runner.js";
export { type WriteFileAtomicOptions, writeFileAtomic } from "./atomic-write.js";
export {
  type CapturedEvent,
  CapturedEventSchema,
  type ToolCallEntry,
  ToolCallEntrySchema,
} from "./captured-event.js";
export {
  type BadCapturedInput,
  parseCapturedEventLine,
  type ReadCapturedEventsOptions,
  readCapturedEvents,
} from "./captured-events-file.js";
export { type HookEventsOptions, runFromHookEvents } from "./claude/hook-events.js";
export { inferPermissionDenials } from "./claude/infer-denials.js";
export {
  type ClaudeOutput,
  type ClaudeOutputFormat,
  type ClaudeOutputOptions,
  claudeOutputInto,
  parseClaudeOutput,
  RESULT_ONLY_NOTE,
  runFromClaudeOutput,
} from "./claude/output.js";
export { claudeProjectKey } from "./claude/project-key.js";
export { runFromStreamJson, type StreamJsonOptions, streamJsonInto, textOf } from "./claude/stream-json.js";
export {
  ASK_TOOLS,
  BOOKKEEPING_TOOLS,
  BUILTIN_TOOLS,
  canonicalToolName,
  DELEGATION_TOOLS,
  EXECUTION_TOOLS,
  FILE_EDIT_TOOLS,
  FILE_WRITE_TOOLS,
  isBookkeepingTool,
  isDelegationTool,
  isExecutionTool,
  isFileEditTool,
  isFileWriteTool,
  isKnownToolName,
  isReadTool,
  PERMISSION_MODES,
  type PermissionMode,
  PermissionModeSchema,
  READ_TOOLS,
  RESULT_SUBTYPES,
  type ResultSubtype,
  SOMETIMES_OFFERED_TOOLS,
  sameTool,
  toolNameVariants,
} from "./claude/vocabulary.js";
export {
  type EvaluatorResult,
  EvaluatorResultSchema,
  type EventPointer,
  type Evidence,
  evaluatorResult,
  type Severity,
  SeveritySchema,
  type Violation,
  ViolationSchema,
} from "./evaluator-result.js";
// Bounding the nesting of a hook input:
export { depthMarker, limitDepth, MAX_EVENT_DEPTH } from "./event-depth.js";
// Synchronous clean-up that must run even when the process is interrupted:
export { type CleanupPhase, pendingExitCleanups, registerExitCleanup } from "./exit-cleanup.js";
// Versions of the file formats defined here.
export { CAPTURED_EVENT_VERSION, RAW_CAPTURED_EVENT_VERSION } from "./format-version.js";
export {
  type GenericHookInput,
  type HookInput,
  type KnownHookInput,
  type MessageDisplayInput,
  type NotificationInput,
  type PermissionRequestInput,
  type PostToolBatchInput,
  type PostToolUseFailureInput,
  type PostToolUseInput,
  type PreToolUseInput,
  parseHookInput,
  type SessionEndInput,
  type SessionStartInput,
  type StopInput,
  type SubagentStartInput,
  type SubagentStopInput,
  type UserPromptSubmitInput,
} from "./hook-input.js";
export {
  formatJsonSchema,
  type JsonSchemaOptions,
  jsonSchemaOf,
  writeJsonSchemaFiles,
} from "./json-schema-of.js";
export { type FileFormatName, fileFormats, jsonSchemaFor } from "./json-schemas.js";
export { appendJsonlLine, JsonlAppender } from "./jsonl-appender.js";
export { type JsonlLinesOptions, readJsonlLinesSync } from "./jsonl-lines.js";
export {
  JsonlLineError,
  type JsonlReadOptions,
  type JsonlRecord,
  MAX_JSONL_LINE_BYTES,
  parseJsonl,
  readJsonl,
  readJsonlFile,
  withoutBom,
} from "./jsonl-reader.js";
export { type LiveRunFields, liveRunResult } from "./live-run-result.js";
export {
  type BuildOpenCodeRunInput,
  buildOpenCodeRun,
  isOpenCodeOutputLine,
  type OpenCodeChildSession,
  type OpenCodeOutputOptions,
  openCodeStreamFinished,
  parseOpenCodeOutput,
  type RunnerStop,
  runFromOpenCodeOutput,
} from "./opencode/run.js";
// The shapes OpenCode 1.18.33 prints with `opencode run --format json` (one object per line) and stores per s...
export {
  exportedParts,
  isOpenCodeStreamLine,
  type OpenCodeError,
  type OpenCodeExport,
  type OpenCodePart,
  type OpenCodeStreamLine,
  type OpenCodeTokens,
  type OpenCodeToolState,
  partsOf,
} from "./opencode/stream.js";
// OpenCode's vocabulary mapped onto Claude Code's (see claude/vocabulary.ts):
export {
  isOpenCodeToolName,
  OPENCODE_INPUT_KEYS,
  OPENCODE_TOOL_NAMES,
  openCodeToolInput,
  openCodeToolName,
  toolNameFromOpenCode,
} from "./opencode/vocabulary.js";
export { PendingMap } from "./pending-map.js";
export {
  createRedactor,
  encodedForms,
  REDACTED,
  type RedactOptions,
  type Redactor,
  redactFileSync,
  redactTreeSync,
  rememberSecrets,
  SECRET_HEADERS,
  SECRET_PATTERNS,
  secretsFromEnv,
  secretsFromEnvValues,
} from "./redact.js";
export {
  type AgentInfo,
  type AssistantTextEvent,
  type FinalResultEvent,
  MAIN_AGENT,
  type Run,
  type RunEvent,
  type RunEventInput,
  type RunNote,
  RunSchema,
  type RunSource,
  type ToolCallEvent,
  type ToolResultEvent,
  type Usage,
  type UserMessageEvent,
} from "./run.js";
export { mergeAgent, RunBuilder, type RunMeta, type RunSink } from "./run-builder.js";
export {
  hookErrorNotes,
  isRunFolder,
  type ReadRunFolderOptions,
  type RunFolder,
  type RunFolderAgent,
  RunFolderAgentSchema,
  type RunFolderCase,
  RunFolderError,
  type RunFolderManifest,
  RunFolderManifestSchema,
  type RunFolderStream,
  type RunFolderStreamBase,
  readManifest,
  readRunFolder,
  readRunFolderResult,
  readRunFolderStream,
  type WriteRunFolderInput,
  writeRunFolder,
} from "./run-folder.js";
// The run folder's file names, apart from its schemas:
export { RUN_FOLDER_FILES, RUNS_FOLDER } from "./run-folder-files.js";
export { type OutputEnv, outputRoot, runFolderPath } from "./run-folder-path.js";
// The one run-id rule and generator:
export {
  assertRunId,
  isSafeRunId,
  MAX_RUN_ID_LENGTH,
  newRunId,
  RunIdError,
  runIdProblem,
} from "./run-id.js";
// How a run ended (timeout, API error, max turns, ...): a fact about a run every judge reads.
export { RUN_OUTCOMES, type RunOutcome, type RunOutcomeKind, runOutcome } from "./run-outcome.js";
export {
  MAX_RESULT_VALUE_BYTES,
  type RunResultFields,
  type RunResultRead,
  runResultInto,
} from "./run-result-stream.js";
export { type RunSummary, runSummary, type TokenTotals } from "./run-summary.js";
export {
  eventsOfType,
  finalResponse,
  finalResult,
  listToolCalls,
  type ToolCallView,
  toolSequence,
} from "./tool-calls.js";
