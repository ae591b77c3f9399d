// The public API of @evals/judge: each statement names what one module publishes, and nothing else of
// the package is public. The whole surface as published (declarations and types) is checked in as
// api/<name>.api.md (API Extractor); `npm run api` writes it again after a change.
// Combining several judge samples into one verdict, and saying how much they disagree.
export {
  COMBINE_MODES,
  type CombinedVerdict,
  type CombineMode,
  combineSamples,
  type Disagreement,
  type SampleScore,
} from "./combine.js";
// The environment variable that turns the LLM judges on for every suite (`EVAL_LLM_JUDGE=1`).
export { judgeEnabled, whenJudging } from "./gate.js";
export { type JudgeOptions, type JudgeSpec, judgeScorer } from "./judge-scorer.js";
export { callJudge, type JudgeEndpoint, type JudgeRequest } from "./model-call.js";
export {
  type JudgeCallIdentity,
  type JudgeConnection,
  type JudgeRecordingOptions,
  type JudgeRecordingUse,
  withRecordedCalls,
} from "./recorded-calls.js";
export {
  type AnswerRelevancyJudgeOptions,
  answerRelevancyJudge,
  RelevancyVerdictSchema,
} from "./relevancy.js";
export { type RubricJudgeOptions, RubricVerdictSchema, rubricJudge } from "./rubric.js";
export { type JudgedText, judgedText } from "./run-text.js";
