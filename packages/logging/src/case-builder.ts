import type { CaseResult, CaseStatus, CaseViolation, Score, TrialResult } from "./case-result.js";
import { paidFor } from "./origin.js";
import { trialStatistics } from "./trial-stats.js";

export type CaseResultInput = Pick<CaseResult, "id" | "name"> &
  Partial<Omit<CaseResult, "id" | "name" | "trials">> & {
    trials: (Omit<TrialResult, "trial" | "violations"> &
      Partial<Pick<TrialResult, "trial" | "violations">>)[];
  };

/**
 * Builds a case result from its trials, filling in what can be derived: per-scorer scores (mean over
 * trials; passed when the mean reaches the threshold, else when every trial passed that scorer), the
 * trial statistics, the violations of all trials (each with its `trial`), total duration and cost, and
 * the status (passed when every trial passed). Anything given explicitly wins, except that the
 * `cost_usd` of a trial whose run was not live (origin replay, cassette or stored) is what its
 * recording cost, not what this eval run spent: it moves to `recorded_cost_usd`, and the case's cost
 * counts only live trials.
 */
export function caseResult(input: CaseResultInput): CaseResult {
  const trials: TrialResult[] = input.trials.map((trial, index) => {
    const number = trial.trial ?? index;
    return {
      ...recordedCost(trial),
      trial: number,
      violations: (trial.violations ?? []).map((violation) => ({ ...violation, trial: number })),
    };
  });
  const ran = trials.filter((trial) => trial.status !== "skipped");
  const status: CaseStatus =
    input.status ??
    (ran.length === 0
      ? "skipped"
      : ran.some((trial) => trial.status === "error")
        ? "error"
        : ran.every((trial) => trial.status === "passed")
          ? "passed"
          : "failed");
  const costs = trials.map((trial) => trial.cost_usd).filter((cost): cost is number => cost !== undefined);
  const violations: CaseViolation[] = input.violations ?? trials.flatMap((trial) => trial.violations);
  const result: CaseResult = {
    id: input.id,
    name: input.name,
    ...(input.suite !== undefined ? { suite: input.suite } : {}),
    ...(input.file !== undefined ? { file: input.file } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    tags: input.tags ?? [],
    status,
    scores: input.scores ?? aggregateScores(ran),
    trials,
    stats: input.stats ?? trialStatistics(trials),
    violations,
    duration_ms: input.duration_ms ?? trials.reduce((sum, trial) => sum + (trial.duration_ms ?? 0), 0),
    ...(input.cost_usd !== undefined
      ? { cost_usd: input.cost_usd }
      : costs.length > 0
        ? { cost_usd: costs.reduce((sum, cost) => sum + cost, 0) }
        : {}),
    ...(input.error !== undefined
      ? { error: input.error }
      : status !== "passed" && trials.find((trial) => trial.error)
        ? { error: trials.find((trial) => trial.error)!.error }
        : {}),
  };
  return result;
}

/** Per scorer, in first-seen order: the mean score over the trials and an overall verdict. */
export function aggregateScores(trials: Pick<TrialResult, "scores">[]): Score[] {
  const byScorer = new Map<string, Score[]>();
  for (const trial of trials) {
    for (const score of trial.scores) {
      const list = byScorer.get(score.scorer) ?? [];
      list.push(score);
      byScorer.set(score.scorer, list);
    }
  }
  return [...byScorer].map(([scorer, scores]) => {
    const mean = scores.reduce((sum, score) => sum + score.score, 0) / scores.length;
    const threshold = scores.find((score) => score.threshold !== undefined)?.threshold;
    return {
      scorer,
      score: mean,
      passed: threshold !== undefined ? mean >= threshold : scores.every((score) => score.passed),
      ...(threshold !== undefined ? { threshold } : {}),
    };
  });
}

/** A trial with the cost of a run that was not paid for in this eval run kept as its recording's. */
function recordedCost<T extends Pick<TrialResult, "origin" | "cost_usd" | "recorded_cost_usd">>(trial: T): T {
  if (paidFor(trial) || trial.cost_usd === undefined) return trial;
  const { cost_usd, ...rest } = trial;
  return { ...rest, recorded_cost_usd: trial.recorded_cost_usd ?? cost_usd } as T;
}
