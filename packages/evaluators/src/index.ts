// The public API of @evals/evaluators: each statement names what one module publishes, and nothing else of
// the package is public. The whole surface as published (declarations and types) is checked in as
// api/<name>.api.md (API Extractor); `npm run api` writes it again after a change.
// Rule evaluators: pure functions over a Run, each with its options schema.

export { type BehaviorExpectations, BehaviorSchema } from "./cases/behavior-schema.js";
export { caseJsonSchema, caseSchemaFor, EvalCaseSchema } from "./cases/case-schema.js";
// Declarative cases, evaluate(), scorers for describeEval.
export {
  type CaseEvaluation,
  type EvaluateStreamOptions,
  type EvaluatorVerdict,
  type ExpectedViolationOutcome,
  evaluate,
  evaluateStream,
  evaluatorsForCase,
  meanScore,
  ruleOptionsFromCase,
  type StreamedEvaluation,
} from "./cases/evaluate.js";
export {
  CaseFileError,
  type CaseIssue,
  type CaseReadOptions,
  caseFilesIn,
  caseWarnings,
  defineCase,
  formatIssue,
  type LoadedCase,
  loadCase,
  loadCaseDir,
  loadCases,
  parseCase,
  parseCaseText,
  resolveAgentPaths,
} from "./cases/load.js";
export {
  type AgentOptions,
  AgentOptionsSchema,
  type CaseSchema,
  type CaseSchemaRule,
  CORE_EVALUATOR_IDS,
  casePrompts,
  caseSchemaOf,
  type EvalCase,
  type EvalCaseInput,
  type ExpectedViolation,
  type RulesConfig,
} from "./cases/schema.js";
export { canonicalizeCaseToolNames, type ToolNameMapping } from "./cases/tool-names.js";
// Building blocks.
export {
  type AnyRule,
  type CaseView,
  defineRule,
  type Rule,
  type RuleContext,
  type RuleOutcome,
  type RuleSpec,
  type RuleSpecBase,
  type VisitContext,
} from "./define-rule.js";
export {
  type EvaluatorOptionsWithThreshold,
  fraction,
  pointerTo,
  RuleOptionsBaseSchema,
  scorerFrom,
} from "./evaluator.js";
// Re-grading stored runs.
export {
  type GradedRun,
  gradeStoredRun,
  gradeWhileReading,
  type HarnessVerdict,
  NoGradableCaseError,
  type StreamGradedRun,
} from "./grade/grade-run.js";
export {
  type AgentOutputReader,
  type LoadStoredRunOptions,
  loadStoredRun,
  type StoredRun,
  StoredRunError,
  type StreamedRunSource,
  streamedRunSource,
} from "./grade/load-run.js";
export { formatEvaluation, type ReportOptions } from "./grade/report.js";
// How the run ended (judged on every case unless it expects another outcome).
export {
  type ExpectedOutcome,
  ExpectedOutcomeSchema,
  expectedOutcomeOf,
  judgeOutcome,
  OUTCOME_EVALUATOR,
  type OutcomeJudgement,
  outcomeMatches,
  outcomeScorer,
} from "./outcome.js";
export { hasGlobChars, normalizePath, pathMatches } from "./paths.js";
export { type PermissionMode, PermissionModeSchema, preApprovedBySettings } from "./permissions.js";
export { ApprovalGateOptionsSchema, approvalGate, approvalGateRule } from "./rules/approval-gate.js";
export { behavior } from "./rules/behavior.js";
export {
  cleanupConfirmation,
  type DestructiveOperation,
  destructiveOperations,
} from "./rules/cleanup-confirmation.js";
export { contextLoading } from "./rules/context-loading.js";
export { delegation } from "./rules/delegation.js";
export { describeRules, type RuleDescription, rulesMarkdown, rulesText } from "./rules/describe.js";
export { errorHandling } from "./rules/error-handling.js";
export { executionBalance } from "./rules/execution-balance.js";
export { forbiddenCommands } from "./rules/forbidden-commands.js";
export {
  measureRun,
  type PerformanceMetrics,
  performanceMetrics,
  type ToolTiming,
} from "./rules/performance-metrics.js";
export { readBeforeWrite } from "./rules/read-before-write.js";
// Rule registries: a case schema (caseSchemaFor), its JSON Schema, `evals rules` and the docs come from one.
export {
  BUILTIN_RULES,
  type BuiltinRule,
  defaultRuleRegistry,
  EVALUATOR_IDS,
  type EvaluatorId,
  OPT_IN_RULE_IDS,
  RULE_IDS,
  type RuleId,
  RuleRegistry,
} from "./rules/registry.js";
export { reportFirst } from "./rules/report-first.js";
export { SkillUsageOptionsSchema, skillUsage, skillUsageRule } from "./rules/skill-usage.js";
export { stopOnFailure } from "./rules/stop-on-failure.js";
export { suggestTool, type ToolSuggestion, toolUsage } from "./rules/tool-usage.js";
export { indexRun, type RunIndex } from "./run-index.js";
export { type RunSoFar, RunStreamVisit, type RunVisitor, visitRun } from "./run-visit.js";
export { behaviorScorer, caseScorer, caseWithOutcome, ruleScorer, scorersForCase } from "./scorers.js";
export { commandsMatch, isReadOnlyCommand, parseShell, type SimpleCommand } from "./shell.js";
export { type ApprovalSignal, approvalRequests } from "./signals.js";
export {
  ASK_TOOLS,
  bashCommand,
  type CallKind,
  callKind,
  DELEGATION_TOOLS,
  EXECUTION_TOOLS,
  FILE_WRITE_TOOLS,
  READ_TOOLS,
} from "./tools.js";
// Trajectory matching (agentevals) with diagnostics.
export {
  type ChatCompletionMessage,
  type ExpectedStep,
  ExpectedStepSchema,
  expectedTrajectory,
  runToMessages,
  type TrajectoryCall,
  trajectoryOf,
  trajectorySteps,
  trajectoryToMessages,
} from "./trajectory/adapter.js";
export {
  diagnoseTrajectory,
  type TrajectoryDiagnosis,
  type TrajectoryIssue,
  type TrajectoryIssueType,
  type TrajectoryMatchSettings,
  type TrajectoryMode,
} from "./trajectory/diagnose.js";
export {
  type ArgsMatchMode,
  fuzzyMatchers,
  matcherForTool,
  type ToolArgsMatcher,
  type ToolArgsOverride,
  type ToolArgsOverrides,
} from "./trajectory/matchers.js";
export {
  type AgentevalsMatcher,
  agentevalsVerdict,
  loadAgentevals,
  RECOMMENDED_TRAJECTORY_PRESET,
  type TrajectoryMatchOptions,
  trajectoryMatch,
  trajectoryScorer,
} from "./trajectory/trajectory-match.js";
