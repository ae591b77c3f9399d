/**
 * Combining several judge samples into one verdict, and saying how much they disagree.
 *
 * - `mean`: the score is the mean of the samples' scores; it passes when it reaches the threshold.
 * - `majority`: each sample passes or fails on its own (its score against the threshold); the score
 *   is the share of samples that passed, and the verdict passes when more than half did (the
 *   scorer's threshold is then that share: 2/3 for 3 samples, 3/4 for 4, 1 for 1 or 2).
 */

export const COMBINE_MODES = ["mean", "majority"] as const;
export type CombineMode = (typeof COMBINE_MODES)[number];

/** One sample's score (0..1). */
export interface SampleScore {
  score: number;
}

/** How the samples disagreed. */
export interface Disagreement {
  samples: number;
  /** How many samples passed on their own (score >= threshold). */
  passed: number;
  /** True when every sample gave the same score. */
  unanimous: boolean;
  /** True when some samples passed and others failed. */
  split: boolean;
  scores: number[];
  min: number;
  max: number;
  /** max - min. */
  spread: number;
  /** Population standard deviation of the scores (0 for one sample). */
  stddev: number;
}

export interface CombinedVerdict {
  score: number;
  passed: boolean;
  /** The score the combined verdict needed. */
  threshold: number;
  disagreement: Disagreement;
}

/** The threshold a judge's combined score needs: its own in mean mode, the majority share otherwise. */
export function combinedThreshold(mode: CombineMode, samples: number, threshold: number): number {
  return mode === "majority" ? (Math.floor(samples / 2) + 1) / samples : threshold;
}

/** Combines the samples' scores (at least one) with `mode`; `threshold` is what one sample needs. */
export function combineSamples(
  samples: SampleScore[],
  mode: CombineMode,
  threshold: number,
): CombinedVerdict {
  if (samples.length === 0) throw new Error("combineSamples: no samples to combine");
  const scores = samples.map((sample) => sample.score);
  const n = scores.length;
  const passed = scores.filter((score) => score >= threshold).length;
  const mean = scores.reduce((sum, score) => sum + score, 0) / n;
  const min = Math.min(...scores);
  const max = Math.max(...scores);
  const stddev = Math.sqrt(scores.reduce((sum, score) => sum + (score - mean) ** 2, 0) / n);
  const needed = combinedThreshold(mode, n, threshold);
  const score = mode === "majority" ? passed / n : mean;
  return {
    score,
    passed: score >= needed,
    threshold: needed,
    disagreement: {
      samples: n,
      passed,
      unanimous: min === max,
      split: passed > 0 && passed < n,
      scores,
      min,
      max,
      spread: max - min,
      stddev,
    },
  };
}
