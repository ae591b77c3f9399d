import {
  type AgentRunResult,
  type EvaluatorResult,
  evaluatorResult,
  type Run,
  type Scorer,
  type Violation,
} from "@evals/core";
import {
  type CaseEvaluation,
  type EvaluatorVerdict,
  evaluate,
  evaluatorsForCase,
  ruleOptionsFromCase,
} from "./cases/evaluate.js";
import { parseCase } from "./cases/load.js";
import type { EvalCase, EvalCaseInput } from "./cases/schema.js";
import { getOrCreate } from "./collections.js";
import { type EvaluatorOptionsWithThreshold, type RuleId, scorerFrom } from "./evaluator.js";
import { ExpectedOutcomeSchema } from "./outcome.js";
import { type ApprovalGateOptions, approvalGate } from "./rules/approval-gate.js";
import { type BehaviorExpectations, behavior } from "./rules/behavior.js";
import { type CleanupConfirmationOptions, cleanupConfirmation } from "./rules/cleanup-confirmation.js";
import { type ContextLoadingOptions, contextLoading } from "./rules/context-loading.js";
import { type DelegationOptions, delegation } from "./rules/delegation.js";
import { type ErrorHandlingOptions, errorHandling } from "./rules/error-handling.js";
import { type ExecutionBalanceOptions, executionBalance } from "./rules/execution-balance.js";
import { type ForbiddenCommandsOptions, forbiddenCommands } from "./rules/forbidden-commands.js";
import { type PerformanceMetricsOptions, performanceMetrics } from "./rules/performance-metrics.js";
import { type ReadBeforeWriteOptions, readBeforeWrite } from "./rules/read-before-write.js";
import { type ReportFirstOptions, reportFirst } from "./rules/report-first.js";
import { type StopOnFailureOptions, stopOnFailure } from "./rules/stop-on-failure.js";
import { type ToolUsageOptions, toolUsage } from "./rules/tool-usage.js";

/** The scorer input's case as one of ours, when it is one. */
function asEvalCase(value: unknown): EvalCase | undefined {
  if (!value || typeof value !== "object") return undefined;
  try {
    return parseCase(value);
  } catch {
    return undefined;
  }
}

function ruleScorer<Options extends object>(
  id: RuleId,
  evaluate: (run: Run, options?: Options) => EvaluatorResult,
  options: (Options & EvaluatorOptionsWithThreshold) | undefined,
): Scorer {
  return scorerFrom<Options>(
    id,
    (run, merged) => evaluate(run, merged),
    options,
    (value) => {
      const evalCase = asEvalCase(value);
      return evalCase ? (ruleOptionsFromCase(id, evalCase) as Options | undefined) : undefined;
    },
  );
}

type WithThreshold<T> = T & EvaluatorOptionsWithThreshold;

/*
 * Scorer factories, one per evaluator. Options given here win; without them, a scorer reads its options
 * from the case describeEval hands it (when that case is one of ours), else uses the defaults.
 */
export const approvalGateScorer = (options?: WithThreshold<ApprovalGateOptions>) =>
  ruleScorer("approval-gate", approvalGate, options);
export const contextLoadingScorer = (options?: WithThreshold<ContextLoadingOptions>) =>
  ruleScorer("context-loading", contextLoading, options);
export const executionBalanceScorer = (options?: WithThreshold<ExecutionBalanceOptions>) =>
  ruleScorer("execution-balance", executionBalance, options);
export const toolUsageScorer = (options?: WithThreshold<ToolUsageOptions>) =>
  ruleScorer("tool-usage", toolUsage, options);
export const delegationScorer = (options?: WithThreshold<DelegationOptions>) =>
  ruleScorer("delegation", delegation, options);
export const stopOnFailureScorer = (options?: WithThreshold<StopOnFailureOptions>) =>
  ruleScorer("stop-on-failure", stopOnFailure, options);
export const cleanupConfirmationScorer = (options?: WithThreshold<CleanupConfirmationOptions>) =>
  ruleScorer("cleanup-confirmation", cleanupConfirmation, options);
export const readBeforeWriteScorer = (options?: WithThreshold<ReadBeforeWriteOptions>) =>
  ruleScorer("read-before-write", readBeforeWrite, options);
export const forbiddenCommandsScorer = (options?: WithThreshold<ForbiddenCommandsOptions>) =>
  ruleScorer("forbidden-commands", forbiddenCommands, options);
export const performanceMetricsScorer = (options?: WithThreshold<PerformanceMetricsOptions>) =>
  ruleScorer("performance-metrics", performanceMetrics, options);
export const reportFirstScorer = (options?: WithThreshold<ReportFirstOptions>) =>
  ruleScorer("report-first", reportFirst, options);
export const errorHandlingScorer = (options?: WithThreshold<ErrorHandlingOptions>) =>
  ruleScorer("error-handling", errorHandling, options);

/** behavior as a scorer: the expectations given here, else the case's `behavior`. */
export const behaviorScorer = (expectations?: WithThreshold<BehaviorExpectations>) =>
  scorerFrom<BehaviorExpectations>(
    "behavior",
    (run, merged) => behavior(run, merged ?? {}),
    expectations,
    (value) => asEvalCase(value)?.behavior,
  );

/** Evaluations shared by the scorers of one case on one run (each evaluator runs once). */
const evaluations = new WeakMap<Run | AgentRunResult, Map<EvalCase, Promise<CaseEvaluation>>>();

/** `evaluate(run, case)`, computed once per run (or agent run result) and case however many scorers ask. */
export function evaluateOnce(run: Run | AgentRunResult, evalCase: EvalCase): Promise<CaseEvaluation> {
  let byCase = evaluations.get(run);
  if (!byCase) {
    byCase = new Map();
    evaluations.set(run, byCase);
  }
  return getOrCreate(byCase, evalCase, () => evaluate(run, evalCase));
}

/** Cases with the expected outcome filled in, per case and outcome, so evaluateOnce shares them. */
const withOutcomes = new WeakMap<EvalCase, Map<string, EvalCase>>();

/**
 * The case as judged when the run was expected to end `expected` (describeEval's `outcome` option,
 * or the one stored in a run folder): the case's own `outcome` wins; an invalid `expected` is ignored.
 */
export function caseWithOutcome(evalCase: EvalCase, expected: unknown): EvalCase {
  if (evalCase.outcome !== undefined || expected === undefined) return evalCase;
  const parsed = ExpectedOutcomeSchema.safeParse(expected);
  if (!parsed.success) return evalCase;
  let byOutcome = withOutcomes.get(evalCase);
  if (!byOutcome) {
    byOutcome = new Map();
    withOutcomes.set(evalCase, byOutcome);
  }
  return getOrCreate(byOutcome, JSON.stringify(parsed.data), () => ({ ...evalCase, outcome: parsed.data }));
}

/** A verdict as a scorer's result: the case-aware pass and score, the reasons as violations. */
function verdictResult(verdict: EvaluatorVerdict, evalCase: EvalCase): EvaluatorResult {
  const missing: Violation[] = verdict.expectedViolations
    .filter((outcome) => !outcome.passed && outcome.shouldViolate)
    .map((outcome) => ({
      rule: verdict.evaluator,
      type: "expected-violation-missing",
      severity: "error",
      message: outcome.message,
      evidence: { rule: outcome.rule, type: outcome.type, severity: outcome.severity },
    }));
  return evaluatorResult({
    evaluator: verdict.evaluator,
    passed: verdict.passed,
    score: verdict.score,
    violations: [...verdict.violations, ...missing],
    evidence: verdict.result.evidence,
    metadata: {
      ...verdict.result.metadata,
      case: evalCase.id,
      rawPassed: verdict.result.passed,
      rawScore: verdict.result.score,
      reasons: verdict.reasons,
      expectedViolations: verdict.expectedViolations,
    },
  });
}

/**
 * The scorers of a case for describeEval: one per evaluator the case runs (behavior, trajectory when
 * expected, each rule not turned off), named by evaluator id. Each passes by the case's rules
 * (expected violations honoured); together they pass exactly when `evaluate(run, case).passed`.
 * They share one evaluation per run.
 */
export function scorersForCase(input: EvalCase | EvalCaseInput): Scorer[] {
  const evalCase = parseCase(input, `case ${JSON.stringify((input as { id?: unknown })?.id ?? "?")}`);
  return evaluatorsForCase(evalCase).map((id) => ({
    name: id,
    ...(evalCase.threshold !== undefined && id !== "behavior" && id !== "outcome"
      ? { threshold: evalCase.threshold }
      : {}),
    async score({ run, result, expectedOutcome }) {
      const evaluation = await evaluateOnce(result ?? run, caseWithOutcome(evalCase, expectedOutcome));
      const verdict = evaluation.verdicts.find((item) => item.evaluator === id) as EvaluatorVerdict;
      return verdictResult(verdict, evalCase);
    },
  }));
}

/** One scorer for a whole case: `evaluate(run, case)` as a single pass/fail with the reasons. */
export function caseScorer(input: EvalCase | EvalCaseInput): Scorer {
  const evalCase = parseCase(input, `case ${JSON.stringify((input as { id?: unknown })?.id ?? "?")}`);
  return {
    name: `case:${evalCase.id}`,
    async score({ run, result, expectedOutcome }) {
      const evaluation = await evaluateOnce(result ?? run, caseWithOutcome(evalCase, expectedOutcome));
      const failing = evaluation.verdicts.filter((verdict) => !verdict.ok);
      return evaluatorResult({
        evaluator: `case:${evalCase.id}`,
        passed: evaluation.passed,
        score: evaluation.score,
        violations: failing.flatMap((verdict) =>
          verdictResult(verdict, evalCase).violations.filter(
            (item) => item.severity === "error" && !item.expected,
          ),
        ),
        evidence: evaluation.verdicts.map((verdict) => ({
          type: verdict.ok ? "passed" : "failed",
          description: `${verdict.evaluator}: ${verdict.score.toFixed(2)}${verdict.reasons.length > 0 ? ` (${verdict.reasons[0]})` : ""}`,
        })),
        metadata: {
          case: evalCase.id,
          reasons: evaluation.reasons,
          expectedViolations: evaluation.expectedViolations,
        },
      });
    },
  };
}
