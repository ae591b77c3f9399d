import type { EvaluatorResult, EventPointer, Run, Severity, Violation } from "@evals/core";
import type { z } from "zod";
import type { BehaviorSchema } from "./cases/behavior-schema.js";
import type { AgentOptions } from "./cases/schema.js";
import { EvidenceLog, type RuleOptionsBase, ruleResult, severityFor, violation } from "./evaluator.js";
import { indexRun, type RunIndex } from "./run-index.js";

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

/** What a rule's `evaluate` returns: the score (0..1) and facts for reports. It passes when no violation is an error. */
export interface RuleOutcome {
  score: number;
  metadata?: Record<string, unknown>;
}

/** Everything a rule says about itself: given to `defineRule`. */
export interface RuleSpec<Id extends string, Options extends z.ZodType> {
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
  /** The check itself: report violations and evidence through `context`, return the score. */
  evaluate(run: Run, options: z.input<Options>, context: RuleContext): RuleOutcome;
}

/** A rule: its spec, and `check` to run it on a run. */
export interface Rule<Id extends string = string, Options extends z.ZodType = z.ZodType>
  extends RuleSpec<Id, Options> {
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
  return {
    ...spec,
    check: (run, options) =>
      runEvaluator(spec.id, run, (options ?? {}) as RuleOptionsBase, (context) =>
        spec.evaluate(run, options ?? ({} as z.input<Options>), context),
      ),
  };
}

/** Runs an evaluator body with a fresh context and builds its result. */
export function runEvaluator(
  id: string,
  run: Run,
  options: RuleOptionsBase,
  body: (context: RuleContext) => RuleOutcome,
): EvaluatorResult {
  const violations: Violation[] = [];
  const evidence = new EvidenceLog();
  const context: RuleContext = {
    index: indexRun(run),
    evidence,
    violations,
    violate(type, severity, message, pointer, details) {
      violations.push(violation(id, type, severityFor(options, type, severity), message, pointer, details));
    },
  };
  const { score, metadata } = body(context);
  return ruleResult(id, { score, violations, evidence, ...(metadata ? { metadata } : {}) });
}
