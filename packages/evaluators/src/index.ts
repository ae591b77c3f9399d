// Rule evaluators: pure functions over a Run, each with its options schema.

// Declarative cases, evaluate(), scorers for describeEval.
export * from "./cases/evaluate.js";
export * from "./cases/load.js";
export * from "./cases/migrate-command.js";
export * from "./cases/migrate-oac.js";
export * from "./cases/schema.js";
export * from "./cases/tool-names.js";
// Building blocks.
export {
  type AnyRule,
  type CaseView,
  defineRule,
  type Rule,
  type RuleContext,
  type RuleOutcome,
  type RuleSpec,
} from "./define-rule.js";
export {
  type EvaluatorOptionsWithThreshold,
  fraction,
  pointerTo,
  type RuleOptionsBase,
  RuleOptionsBaseSchema,
  scorerFrom,
} from "./evaluator.js";
export { GRADE_EXIT, GRADE_USAGE, gradeCommand, internalErrorMessage } from "./grade/grade-command.js";
// Re-grading stored runs.
export {
  type LoadStoredRunOptions,
  loadStoredRun,
  type StoredRun,
  StoredRunError,
} from "./grade/load-run.js";
export { formatEvaluation, type ReportOptions } from "./grade/report.js";
// How the run ended (judged on every case unless it expects another outcome).
export * from "./outcome.js";
export { normalizePath, pathMatches, relativeToCwd } from "./paths.js";
export {
  allowedToolRuleMatches,
  type PermissionMode,
  PermissionModeSchema,
  preApprovedBySettings,
} from "./permissions.js";
export * from "./rules/approval-gate.js";
export * from "./rules/behavior.js";
export * from "./rules/cleanup-confirmation.js";
export * from "./rules/context-loading.js";
export * from "./rules/delegation.js";
export { describeRules, type RuleDescription, rulesMarkdown, rulesText } from "./rules/describe.js";
export * from "./rules/error-handling.js";
export * from "./rules/execution-balance.js";
export * from "./rules/forbidden-commands.js";
export * from "./rules/performance-metrics.js";
export * from "./rules/read-before-write.js";
// The rule registry: the case schema, its JSON Schema, `evals rules` and the docs come from it.
export {
  allRules,
  BUILTIN_RULES,
  CORE_EVALUATOR_IDS,
  EVALUATOR_IDS,
  type EvaluatorId,
  evaluatorIds,
  isOptInRule,
  OPT_IN_RULE_IDS,
  RULE_IDS,
  type RuleId,
  registerRule,
  ruleById,
  unregisterRule,
} from "./rules/registry.js";
export * from "./rules/report-first.js";
export * from "./rules/stop-on-failure.js";
export * from "./rules/tool-usage.js";
export { indexRun, type RunIndex } from "./run-index.js";
export * from "./scorers.js";
export { commandsMatch, isReadOnlyCommand, parseShell, type SimpleCommand, tokenizeShell } from "./shell.js";
export {
  type ApprovalSignal,
  approvalRequests,
  approvalSignalsBefore,
  DEFAULT_APPROVAL_REQUEST_PATTERNS,
  DEFAULT_PRE_APPROVAL_PATTERNS,
} from "./signals.js";
export {
  ASK_TOOLS,
  bashCommand,
  type CallKind,
  callKind,
  DELEGATION_TOOLS,
  EXECUTION_TOOLS,
  FILE_WRITE_TOOLS,
  filePathOf,
  READ_TOOLS,
} from "./tools.js";
// Trajectory matching (agentevals) with diagnostics.
export * from "./trajectory/adapter.js";
export * from "./trajectory/diagnose.js";
export * from "./trajectory/matchers.js";
export * from "./trajectory/trajectory-match.js";
