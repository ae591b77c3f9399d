// The public API of @evals/harness: each statement names what one module publishes, and nothing else of
// the package is public. The whole surface as published (declarations and types) is checked in as
// api/<name>.api.md (API Extractor); `npm run api` writes it again after a change.
// @evals/harness: the engine. Trials, cases, variants, shards and scoring over any agent runner (an
// @evals/core AgentRunner found in a RunnerRegistry). describeEval and describeCases, which declare
// vitest suites, are in `@evals/harness/vitest`: importing this loads no vitest.
export {
  type CaseResult,
  type EvalTestMeta,
  type TrialResult,
  type TrialStats,
  trialStatistics,
  wilsonInterval,
} from "@evals/logging";
export { caseFixtureProblems } from "./case-fixture.js";
export { type CaseModels, caseModel } from "./case-models.js";
export {
  type CaseInput,
  type CaseOutcome,
  type CaseScorers,
  type CaseSettings,
  caseId,
  caseName,
  type EvalTask,
  evaluateCase,
} from "./evaluate-case.js";
export { caseFailureMessage, formatStats, type TrialReport } from "./failure-message.js";
// Runs at most `max` tasks at once; the others wait their turn, first come first served.
export { createLimiter } from "./limiter.js";
export { type OtelOption, otelExportOn } from "./otel-export.js";
// When a case with several trials passes:
export { type PassRule, satisfiesPassRule } from "./pass-rule.js";
export {
  type CaseList,
  type CaseSuiteOptions,
  caseRunOptions,
  checkRecordingKeys,
  DuplicateCaseIdError,
  loadCaseList,
  type RunCaseOptions,
  type RunCasesOptions,
  type RunCasesResult,
  runCase,
  runCases,
  runnerOptionProblems,
} from "./run-case.js";
// What a case needs to run: at most MAX_TRIALS trials, a prompt, a fixture that exists.
export { MAX_TRIALS, runnableCaseProblems } from "./runnable-case.js";
export {
  type AgentChoice,
  type AnyAgentRunner,
  RunnerRegistry,
  resolveRunner,
  type SuiteAgents,
  suiteRegistry,
  UnknownRunnerError,
} from "./runner-registry.js";
export { type ScorerVerdict, scoreTrial, type Threshold, type TrialScores, thresholdFor } from "./scoring.js";
export { casesInShard, shardsOfCases } from "./shard.js";
export { type MergedComparison, mergeShardComparisons } from "./shard-variants.js";
export {
  type CaseModel,
  type CassetteOption,
  cassetteKeyOptions,
  NoModelToRecordError,
  runTrial,
  type TrialContext,
  type TrialRunOptions,
  type TrialRunResult,
  type TrialSetup,
  type TrialVariant,
  type WorktreeOption,
} from "./trial.js";
export {
  comparisonVerdict,
  formatVariantsReport,
  loadVariants,
  type Variant,
  type VariantReport,
  type VariantReportFiles,
  type VariantRuns,
  VariantsFileError,
  VariantsFileSchema,
  type VariantsResult,
  variantReportsDir,
  variantSuite,
  writeVariantReports,
} from "./variants.js";
