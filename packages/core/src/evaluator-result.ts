import { z } from "zod";
import { EVALUATOR_RESULT_VERSION } from "./format-version.js";

export const SeveritySchema = z.enum(["error", "warning", "info"]);
export type Severity = z.infer<typeof SeveritySchema>;

/** Where in the run a violation happened. */
export const EventPointerSchema = z.object({
  event_index: z.number().int().nonnegative().optional(),
  tool_use_id: z.string().optional(),
  agent: z.string().optional(),
});
export type EventPointer = z.infer<typeof EventPointerSchema>;

export const ViolationSchema = z.object({
  /** The evaluator's rule id, e.g. "approval-gate" (what cases name in expectedViolations). */
  rule: z.string(),
  /** The specific check that failed, e.g. "missing-approval". */
  type: z.string(),
  severity: SeveritySchema,
  message: z.string(),
  pointer: EventPointerSchema.optional(),
  evidence: z.unknown().optional(),
  /**
   * The case expected this violation (its `expectedViolations` named it), so it happened as it should
   * and does not count against the verdict. Reports show it as expected, not as an error.
   */
  expected: z.boolean().optional(),
});
export type Violation = z.infer<typeof ViolationSchema>;

export const EvidenceSchema = z.object({
  type: z.string(),
  description: z.string(),
  data: z.unknown().optional(),
  pointer: EventPointerSchema.optional(),
});
export type Evidence = z.infer<typeof EvidenceSchema>;

export const EvaluatorResultSchema = z.object({
  version: z.literal(EVALUATOR_RESULT_VERSION),
  evaluator: z.string(),
  passed: z.boolean(),
  score: z.number().min(0).max(1),
  violations: z.array(ViolationSchema),
  evidence: z.array(EvidenceSchema),
  metadata: z.record(z.string(), z.unknown()).default({}),
});
export type EvaluatorResult = z.infer<typeof EvaluatorResultSchema>;

/** Builds a result, clamping the score and defaulting the lists. */
export function evaluatorResult(
  fields: Pick<EvaluatorResult, "evaluator" | "passed" | "score"> &
    Partial<Pick<EvaluatorResult, "violations" | "evidence" | "metadata">>,
): EvaluatorResult {
  return {
    version: EVALUATOR_RESULT_VERSION,
    evaluator: fields.evaluator,
    passed: fields.passed,
    score: Math.min(1, Math.max(0, Number.isFinite(fields.score) ? fields.score : 0)),
    violations: fields.violations ?? [],
    evidence: fields.evidence ?? [],
    metadata: fields.metadata ?? {},
  };
}
