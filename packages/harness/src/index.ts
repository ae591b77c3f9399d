// The public API of @evals/harness: each statement names what one module publishes, and nothing else of
// the package is public. The whole surface as published (declarations and types) is checked in as
// api/<name>.api.md (API Extractor); `npm run api` writes it again after a change.
// @evals/harness: run the real Claude Code CLI headless and hermetic, normalize what it did into
// one @evals/core Run, and turn scorers into vitest tests with trial statistics.
export {
  type CaseResult,
  type EvalTestMeta,
  type TrialResult,
  type TrialStats,
  trialStatistics,
  wilsonInterval,
} from "@evals/logging";
export {
  type AgentChoice,
  type AgentRunner,
  type AgentRunnerOptions,
  claudeCodeRunner,
  resolveAgentRunner,
} from "./agent-runner.js";
export { caseFixtureProblems } from "./case-fixture.js";
export { type CaseModels, caseModel } from "./case-models.js";
// The command line of one headless run.
export {
  type AgentDefinition,
  type ClaudeArgsInput,
  type ClaudeFlags,
  claudeArgs,
  type PermissionMode,
  userMessageLine,
} from "./claude-args.js";
export {
  type ClaudeAvailability,
  ClaudeNotFoundError,
  claudeAvailable,
  type FindClaudeOptions,
  findClaude,
  findInstalledBin,
  isExecutable,
  type SkipMeta,
  type SkippableContext,
  skipIfNoClaude,
} from "./claude-bin.js";
export { type DescribeCasesOptions, describeCases } from "./describe-cases.js";
export { type DescribeEvalOptions, describeEval } from "./describe-eval.js";
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
  isAlive,
  type KillTreeOptions,
  killProcessTree,
  listProcesses,
  type ProcessInfo,
  RUN_MARKER_ENV,
  runProcesses,
} from "./process-tree.js";
export { backfillStreamIds, type ReconcileInput, reconcileRun, reconcileRuns } from "./reconcile.js";
export { type RunAgentOptions, type RunAgentResult, runAgent } from "./run-agent.js";
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
} from "./run-case.js";
export { cleanupLeftoverRuns, type LeftoverReport } from "./run-guard.js";
// What a case needs to run: at most MAX_TRIALS trials, a prompt, a fixture that exists.
export { MAX_TRIALS, runnableCaseProblems } from "./runnable-case.js";
export { INHERITED_ENV, NETWORK_ENV, stableEnv, stableLocale } from "./sandbox.js";
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
