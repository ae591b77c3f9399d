import { type AgentRunResult, type EvaluatorResult, evaluatorResult, type Scorer } from "@evals/core";

/**
 * Thresholds of a suite:
 * - a number: the score every scorer needs (a scorer's own `threshold` wins);
 * - `{ scorers: { name: score } }`: per scorer, winning over the scorer's own threshold;
 * - `{ overall: score }`: the mean score of a trial's scorers must also reach it.
 * A scorer with no threshold at all passes when its result says `passed`.
 */
export type Threshold = number | { overall?: number; scorers?: Record<string, number> };

/** One scorer's verdict on one trial. */
export interface ScorerVerdict {
  scorer: string;
  score: number;
  passed: boolean;
  /** The score it needed, when it had a threshold. */
  threshold?: number;
  result: EvaluatorResult;
  /** Set when the scorer threw instead of returning a result. */
  error?: string;
}

/** A trial's scores and whether they pass. */
export interface TrialScores {
  verdicts: ScorerVerdict[];
  /** Mean of the scorers' scores (1 when there are none). */
  mean: number;
  /** The overall threshold the mean had to reach, when there was one. */
  overall?: number;
  passed: boolean;
}

/** The threshold a scorer must reach, or undefined when its own `passed` decides. */
export function thresholdFor(
  scorer: Pick<Scorer, "name" | "threshold">,
  threshold?: Threshold,
): number | undefined {
  if (typeof threshold === "object") return threshold.scorers?.[scorer.name] ?? scorer.threshold;
  return scorer.threshold ?? threshold;
}

/** Runs every scorer on one trial's result. A scorer that throws scores 0 and fails, with its error. */
export async function scoreTrial<Case>(
  scorers: Scorer<Case>[],
  input: { result: AgentRunResult; case: Case; expectedOutcome?: string | string[] },
  threshold?: Threshold,
): Promise<TrialScores> {
  const verdicts: ScorerVerdict[] = [];
  for (const scorer of scorers) {
    const needed = thresholdFor(scorer, threshold);
    let result: EvaluatorResult;
    let error: string | undefined;
    try {
      result = await scorer.score({
        run: input.result.run,
        result: input.result,
        case: input.case,
        ...(input.expectedOutcome !== undefined ? { expectedOutcome: input.expectedOutcome } : {}),
      });
    } catch (caught) {
      error = caught instanceof Error ? caught.message : String(caught);
      result = evaluatorResult({ evaluator: scorer.name, passed: false, score: 0 });
    }
    const passed = error === undefined && (needed !== undefined ? result.score >= needed : result.passed);
    verdicts.push({
      scorer: scorer.name,
      score: result.score,
      passed,
      ...(needed !== undefined ? { threshold: needed } : {}),
      result,
      ...(error !== undefined ? { error } : {}),
    });
  }
  const mean =
    verdicts.length === 0 ? 1 : verdicts.reduce((sum, verdict) => sum + verdict.score, 0) / verdicts.length;
  const overall = typeof threshold === "object" ? threshold.overall : undefined;
  const passed = verdicts.every((verdict) => verdict.passed) && (overall === undefined || mean >= overall);
  return { verdicts, mean, ...(overall !== undefined ? { overall } : {}), passed };
}
