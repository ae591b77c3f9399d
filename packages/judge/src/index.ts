export * from "./combine.js";
export * from "./errors.js";
export * from "./gate.js";
export {
  DEFAULT_JUDGE_MODEL,
  type GradedSample,
  type JudgeMetadata,
  type JudgeOptions,
  type JudgeSpec,
  judgeScorer,
} from "./judge-scorer.js";
export { callJudge, type JudgeEndpoint, type JudgeRequest } from "./model-call.js";
export {
  type JudgeCallIdentity,
  type JudgeConnection,
  type JudgeRecordingOptions,
  type JudgeRecordingUse,
  missingMessage,
  withRecordedCalls,
} from "./recorded-calls.js";
export * from "./relevancy.js";
export * from "./rubric.js";
export { CWD_PLACEHOLDER, type JudgedText, judgedText, maskCwd } from "./run-text.js";
