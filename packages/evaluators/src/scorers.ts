import {
  type AgentRunResult,
  type EvaluatorResult,
  evaluatorResult,
  type Run,
  type Scorer,
  type Violation,
} from "@evals/core";
import type { z } from "zod";
import type { BehaviorExpectations } from "./cases/behavior-schema.js";
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
import type { AnyRule } from "./define-rule.js";
import { type EvaluatorOptionsWithThreshold, scorerFrom } from "./evaluator.js";
import { ExpectedOutcomeSchema } from "./outcome.js";
import { behavior } from "./rules/behavior.js";
import { type BuiltinRule, defaultRuleRegistry, type RuleId, type RuleRegistry } from "./rules/registry.js";

/** The scorer input's case as one of ours, when it is one. */
function asEvalCase(value: unknown, rules: RuleRegistry = defaultRuleRegistry): EvalCase | undefined {
  if (!value || typeof value !== "object") return undefined;
  try {
    return parseCase(value, undefined, rules);
  } catch {
    return undefined;
  }
}

type WithThreshold<T> = T & EvaluatorOptionsWithThreshold;

/**
 * A rule as a describeEval scorer: a rule made with defineRule, or the id of one in `rules` (default:
 * the built-in rules, e.g. `ruleScorer("read-before-write")`). Options given here win; without
 * them, the scorer reads its options from the case describeEval hands it (when that case is one of
 * ours), else uses the defaults.
 */
export function ruleScorer<Rule extends AnyRule>(
  rule: Rule,
  options?: WithThreshold<z.input<Rule["options"]>>,
  rules?: RuleRegistry,
): Scorer;
export function ruleScorer<Id extends RuleId>(
  id: Id,
  options?: WithThreshold<z.input<BuiltinRule<Id>["options"]>>,
): Scorer;
export function ruleScorer(
  id: string,
  options: WithThreshold<Record<string, unknown>> | undefined,
  rules: RuleRegistry,
): Scorer;
export function ruleScorer(
  rule: AnyRule | string,
  options?: WithThreshold<z.input<AnyRule["options"]>>,
  rules: RuleRegistry = defaultRuleRegistry,
): Scorer {
  const found = typeof rule === "string" ? rules.get(rule) : rule;
  if (!found) {
    throw new Error(`ruleScorer: no rule "${String(rule)}" (the rules: ${rules.evaluatorIds().join(", ")})`);
  }
  return scorerFrom<Record<string, unknown>>(
    found.id,
    (run, merged) => found.check(run, merged),
    options,
    (value) => {
      const evalCase = asEvalCase(value, rules);
      return evalCase ? ruleOptionsFromCase(found.id, evalCase, rules) : undefined;
    },
  );
}

/** behavior as a scorer: the expectations given here, else the case's `behavior`. */
export const behaviorScorer = (expectations?: WithThreshold<BehaviorExpectations>) =>
  scorerFrom<BehaviorExpectations>(
    "behavior",
    (run, merged) => behavior(run, merged ?? {}),
    expectations,
    (value) => asEvalCase(value)?.behavior,
  );

/** Evaluations shared by the scorers of one case on one run (each evaluator runs once). */
const evaluations = new WeakMap<
  Run | AgentRunResult,
  Map<RuleRegistry, Map<EvalCase, Promise<CaseEvaluation>>>
>();

/**
 * `evaluate(run, case, rules)`, computed once per run (or agent run result), registry and case
 * however many scorers ask.
 */
export function evaluateOnce(
  run: Run | AgentRunResult,
  evalCase: EvalCase,
  rules: RuleRegistry = defaultRuleRegistry,
): Promise<CaseEvaluation> {
  const byRegistry = getOrCreate(evaluations, run, () => new Map());
  const byCase = getOrCreate(byRegistry, rules, () => new Map());
  return getOrCreate(byCase, evalCase, () => evaluate(run, evalCase, rules));
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
 * They share one evaluation per run. The rules come from `rules` (default: the built-in ones).
 */
export function scorersForCase(
  input: EvalCase | EvalCaseInput,
  rules: RuleRegistry = defaultRuleRegistry,
): Scorer[] {
  const evalCase = parseCase(input, caseSource(input), rules);
  return evaluatorsForCase(evalCase, rules).map((id) => ({
    name: id,
    ...(evalCase.threshold !== undefined && id !== "behavior" && id !== "outcome"
      ? { threshold: evalCase.threshold }
      : {}),
    async score({ run, result, expectedOutcome }) {
      const evaluation = await evaluateOnce(result ?? run, caseWithOutcome(evalCase, expectedOutcome), rules);
      const verdict = evaluation.verdicts.find((item) => item.evaluator === id) as EvaluatorVerdict;
      return verdictResult(verdict, evalCase);
    },
  }));
}

/** One scorer for a whole case: `evaluate(run, case, rules)` as a single pass/fail with the reasons. */
export function caseScorer(
  input: EvalCase | EvalCaseInput,
  rules: RuleRegistry = defaultRuleRegistry,
): Scorer {
  const evalCase = parseCase(input, caseSource(input), rules);
  return {
    name: `case:${evalCase.id}`,
    async score({ run, result, expectedOutcome }) {
      const evaluation = await evaluateOnce(result ?? run, caseWithOutcome(evalCase, expectedOutcome), rules);
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

/** How errors name a case given in code: `case "<id>"`. */
function caseSource(input: EvalCase | EvalCaseInput): string {
  return `case ${JSON.stringify((input as { id?: unknown })?.id ?? "?")}`;
}
