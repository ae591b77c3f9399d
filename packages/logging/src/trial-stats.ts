import type { TrialResult, TrialStats } from "./case-result.js";

/**
 * Statistics over a case's trials. pass@k and pass^k use the unbiased estimators over the n trials
 * that ran (k defaults to n): pass@k = 1 - C(n-c, k) / C(n, k), pass^k = C(c, k) / C(n, k).
 */
export function trialStatistics(
  trials: Pick<TrialResult, "status" | "scores">[],
  options: { k?: number } = {},
): TrialStats {
  const counted = trials.filter((trial) => trial.status !== "skipped");
  const n = counted.length;
  const c = counted.filter((trial) => trial.status === "passed").length;
  const k = Math.max(0, Math.min(options.k ?? n, n));
  const scores = counted.map(trialScore);
  const mean = n === 0 ? 0 : scores.reduce((sum, score) => sum + score, 0) / n;
  const variance = n < 2 ? 0 : scores.reduce((sum, score) => sum + (score - mean) ** 2, 0) / (n - 1);
  const [ciLow, ciHigh] = wilsonInterval(c, n);
  let flips = 0;
  for (let i = 1; i < n; i++)
    if ((counted[i]!.status === "passed") !== (counted[i - 1]!.status === "passed")) flips++;
  return {
    trials: n,
    passed: c,
    pass_rate: n === 0 ? 0 : c / n,
    mean_score: clamp01(mean),
    score_stddev: Math.sqrt(variance),
    k,
    pass_at_k: k === 0 ? 0 : 1 - ratioOfBinomials(n - c, n, k),
    pass_hat_k: k === 0 ? 0 : ratioOfBinomials(c, n, k),
    ci_low: ciLow,
    ci_high: ciHigh,
    flip_rate: n < 2 ? 0 : flips / (n - 1),
  };
}

/** A trial's score: the mean of its scorers' scores (1 when it had none and passed). */
export function trialScore(trial: Pick<TrialResult, "status" | "scores">): number {
  if (trial.scores.length === 0) return trial.status === "passed" ? 1 : 0;
  return trial.scores.reduce((sum, score) => sum + score.score, 0) / trial.scores.length;
}

/** The 95% Wilson score interval of c successes in n trials. */
export function wilsonInterval(c: number, n: number, z = 1.959964): [number, number] {
  if (n === 0) return [0, 1];
  const p = c / n;
  const z2 = z * z;
  const centre = p + z2 / (2 * n);
  const margin = z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  const denominator = 1 + z2 / n;
  return [clamp01((centre - margin) / denominator), clamp01((centre + margin) / denominator)];
}

/** C(a, k) / C(n, k), computed as a product so it never overflows. */
function ratioOfBinomials(a: number, n: number, k: number): number {
  if (k > a) return 0;
  let ratio = 1;
  for (let i = 0; i < k; i++) ratio *= (a - i) / (n - i);
  return ratio;
}

function clamp01(value: number): number {
  return Math.min(1, Math.max(0, value));
}
