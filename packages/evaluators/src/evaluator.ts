import {
  type EvaluatorResult,
  type EventPointer,
  type Evidence,
  evaluatorResult,
  type Scorer,
  type ScorerInput,
  type Severity,
  SeveritySchema,
  type ToolCallView,
  type Violation,
} from "@evals/core";
import { z } from "zod";

/**
 * Options every rule accepts: `severity` replaces the severity of the rule's violations, for all of
 * them (`"warning"`) or by violation type (`{ "missing-approval": "warning" }`).
 */
export const RuleOptionsBaseSchema = z.object({
  severity: z.union([SeveritySchema, z.record(z.string(), SeveritySchema)]).optional(),
});
export type RuleOptionsBase = z.input<typeof RuleOptionsBaseSchema>;

export function severityFor(
  options: RuleOptionsBase | undefined,
  type: string,
  fallback: Severity,
): Severity {
  const override = options?.severity;
  if (override === undefined) return fallback;
  if (typeof override === "string") return override;
  return override[type] ?? fallback;
}

export function pointerTo(call: Pick<ToolCallView, "index" | "id" | "agent">): EventPointer {
  return { event_index: call.index, tool_use_id: call.id, agent: call.agent };
}

export { violation } from "./violation.js";

/** Most evidence items an evaluator reports; the rest are counted in a last item. */
export const MAX_EVIDENCE = 100;

/**
 * An evaluator's evidence, capped: on a run of 100,000 calls, "approved" for each would bloat every
 * report. Past the limit an item is only counted (its description is never even built).
 */
export class EvidenceLog {
  private readonly items: Evidence[] = [];
  private dropped = 0;
  constructor(private readonly limit = MAX_EVIDENCE) {}

  add(make: () => Evidence): void {
    if (this.items.length < this.limit) this.items.push(make());
    else this.dropped++;
  }

  get length(): number {
    return this.items.length + this.dropped;
  }

  /**
   * Adds what `later` logged, after this log's evidence, as if each had been added here now: for
   * evidence a visiting rule can only place at its end but makes earlier (so it keeps no calls).
   */
  append(later: EvidenceLog): void {
    for (const item of later.items) this.add(() => item);
    this.dropped += later.dropped;
  }

  list(): Evidence[] {
    if (this.dropped === 0) return this.items;
    return [...this.items, { type: "truncated", description: `... and ${this.dropped} more` }];
  }
}

/** A rule's result: it passes when none of its violations is an error. */
export function ruleResult(
  evaluator: string,
  fields: {
    score: number;
    violations: Violation[];
    evidence?: Evidence[] | EvidenceLog;
    metadata?: Record<string, unknown>;
  },
): EvaluatorResult {
  const evidence = fields.evidence instanceof EvidenceLog ? fields.evidence.list() : (fields.evidence ?? []);
  return evaluatorResult({
    evaluator,
    passed: !fields.violations.some((item) => item.severity === "error"),
    score: fields.score,
    violations: fields.violations,
    evidence,
    metadata: fields.metadata ?? {},
  });
}

/** The fraction of checks that passed (1 when there was nothing to check). */
export function fraction(passed: number, total: number): number {
  return total === 0 ? 1 : passed / total;
}

/** Scorer factories accept the score the scorer needs (0..1); without one, the result's `passed` decides. */
export interface EvaluatorOptionsWithThreshold {
  threshold?: number;
}

/**
 * Turns an evaluator into a describeEval scorer. With no explicit options, the scorer takes them from
 * the case it is given (when `fromCase` knows how), so the same scorer works across a suite of cases.
 */
export function scorerFrom<Options>(
  name: string,
  evaluate: (
    run: ScorerInput["run"],
    options: Options | undefined,
  ) => EvaluatorResult | Promise<EvaluatorResult>,
  options: (Options & EvaluatorOptionsWithThreshold) | undefined,
  fromCase?: (evalCase: unknown) => Options | undefined,
): Scorer {
  const { threshold, ...rest } = (options ?? {}) as Options & { threshold?: number };
  const explicit = options === undefined ? undefined : (rest as Options);
  return {
    name,
    ...(threshold !== undefined ? { threshold } : {}),
    score({ run, case: evalCase }) {
      const caseOptions = evalCase !== undefined && fromCase ? fromCase(evalCase) : undefined;
      const merged =
        caseOptions === undefined
          ? explicit
          : ({ ...caseOptions, ...(explicit ?? {}) } as Options | undefined);
      return evaluate(run, merged);
    },
  };
}
