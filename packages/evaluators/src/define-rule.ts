import type { EvaluatorResult, EventPointer, Run, Severity, Violation } from "@evals/core";
import type { z } from "zod";
import type { BehaviorSchema } from "./cases/behavior-schema.js";
import type { AgentOptions } from "./cases/schema.js";
import { EvidenceLog, type RuleOptionsBase, ruleResult, severityFor, violation } from "./evaluator.js";
import { indexRun, type RunIndex } from "./run-index.js";
import { type RunSoFar, type RunVisitor, visitRun } from "./run-visit.js";

/** What a rule's `fromCase` sees of a case: the fields that do not depend on the rules themselves. */
export interface CaseView {
  id: string;
  tags: string[];
  agent: AgentOptions;
  behavior?: z.output<typeof BehaviorSchema>;
}

/** What a rule's `evaluate` is handed besides the run and its options: the run's index and the result being built. */
export interface RuleContext {
  /** The run's tool calls, agents and results, indexed once and shared by every rule. */
  index: RunIndex;
  /** The evidence the rule reports (capped: past the limit an item is only counted). */
  evidence: EvidenceLog;
  /** The violations reported so far. */
  violations: Violation[];
  /**
   * Reports a violation of this rule. `severity` is the default; the case's `severity` option
   * (for the whole rule or by violation type) replaces it.
   */
  violate(
    type: string,
    severity: Severity,
    message: string,
    pointer?: EventPointer,
    evidence?: unknown,
  ): void;
}

/**
 * What a rule's `visit` is handed besides its options: what is known of the run so far, and the
 * result being built (as RuleContext).
 */
export interface VisitContext extends Omit<RuleContext, "index"> {
  index: RunSoFar;
}

/** What a rule's `evaluate` returns: the score (0..1) and facts for reports. It passes when no violation is an error. */
export interface RuleOutcome {
  score: number;
  metadata?: Record<string, unknown>;
}

/** What every rule says about itself besides its check (see RuleSpec). */
export interface RuleSpecBase<Id extends string, Options extends z.ZodType> {
  /** The id its violations carry and cases name (`rules: { <id>: ... }`, `expectedViolations[].rule`). */
  id: Id;
  /** What the rule checks, in one sentence: shown in the case JSON Schema, `evals rules` and the docs. */
  summary: string;
  /** Its options (a zod object; extend `RuleOptionsBaseSchema` for `severity`). */
  options: Options;
  /** Runs only when a case names it (a `rules` entry or an expected violation); default: on every case unless turned off. */
  optIn?: boolean;
  /** Options the case implies elsewhere (e.g. the agent's permission mode); its `rules` entry wins over them. */
  fromCase?: (evalCase: CaseView) => z.input<Options>;
}

/**
 * Everything a rule says about itself: given to `defineRule`. The check is one of:
 * - `evaluate(run, options, context)`: handed the whole run;
 * - `visit(options, context)`: a RunVisitor handed the run's events and calls in order while they are
 *   read, keeping only what it needs. `evals grade` of a long stream-json run reads it in bounded
 *   memory when every rule of the case visits. When both are given, `visit` is the check.
 */
export interface RuleSpec<Id extends string, Options extends z.ZodType> extends RuleSpecBase<Id, Options> {
  /** The check itself: report violations and evidence through `context`, return the score. */
  evaluate?(run: Run, options: z.input<Options>, context: RuleContext): RuleOutcome;
  /** The check as a visitor of the run: report through `context`, return the score from `end`. */
  visit?(options: z.input<Options>, context: VisitContext): RunVisitor<RuleOutcome>;
}

/** A rule: its spec, and `check` to run it on a run. */
export interface Rule<Id extends string = string, Options extends z.ZodType = z.ZodType>
  extends RuleSpecBase<Id, Options> {
  /** The check on a whole run (a visiting rule's visitor driven over the run's events). */
  evaluate(run: Run, options: z.input<Options>, context: RuleContext): RuleOutcome;
  /** The check as a visitor, when the rule has one. */
  visit?(options: z.input<Options>, context: VisitContext): RunVisitor<RuleOutcome>;
  /** Runs the rule on a run with these options (no options: the defaults). */
  check(run: Run, options?: z.input<Options>): EvaluatorResult;
}

/** Any rule, whatever its options. */
// biome-ignore lint/suspicious/noExplicitAny: a registry holds rules of every options type.
export type AnyRule = Rule<string, any>;

/**
 * Declares a rule in one place: its id, options schema, how a case enables and configures it, and its
 * check. Add it to a registry (`defaultRuleRegistry.with(rule)`) to use it from case files.
 */
export function defineRule<const Id extends string, Options extends z.ZodType>(
  spec: RuleSpec<Id, Options>,
): Rule<Id, Options> {
  const { visit, evaluate: evaluateRun } = spec;
  let evaluate: Rule<Id, Options>["evaluate"];
  if (visit) {
    evaluate = (run, options, context) =>
      visitRun(run, (soFar) => [visit(options, { ...context, index: soFar })])[0] as RuleOutcome;
  } else if (evaluateRun) {
    evaluate = evaluateRun;
  } else {
    throw new Error(
      `rule "${spec.id}": give it an evaluate(run, options, context) or a visit(options, context)`,
    );
  }
  return {
    ...spec,
    evaluate,
    check: (run, options) =>
      runEvaluator(spec.id, run, (options ?? {}) as RuleOptionsBase, (context) =>
        evaluate(run, options ?? ({} as z.input<Options>), context),
      ),
  };
}

/** The context a rule reports through: fresh violations and evidence, the rule's severities applied. */
export function newRuleContext<Index>(
  id: string,
  options: RuleOptionsBase,
  index: Index,
): Omit<RuleContext, "index"> & { index: Index } {
  const violations: Violation[] = [];
  return {
    index,
    evidence: new EvidenceLog(),
    violations,
    violate(type, severity, message, pointer, details) {
      violations.push(violation(id, type, severityFor(options, type, severity), message, pointer, details));
    },
  };
}

/** A rule's result from its context and outcome. */
export function resultOf(
  id: string,
  context: Omit<RuleContext, "index">,
  outcome: RuleOutcome,
): EvaluatorResult {
  const { score, metadata } = outcome;
  return ruleResult(id, {
    score,
    violations: context.violations,
    evidence: context.evidence,
    ...(metadata ? { metadata } : {}),
  });
}

/** Runs an evaluator body with a fresh context and builds its result. */
export function runEvaluator(
  id: string,
  run: Run,
  options: RuleOptionsBase,
  body: (context: RuleContext) => RuleOutcome,
): EvaluatorResult {
  const context = newRuleContext(id, options, indexRun(run));
  return resultOf(id, context, body(context));
}
