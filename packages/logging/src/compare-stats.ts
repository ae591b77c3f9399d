import { wilsonInterval } from "./trial-stats.js";

/** A pass rate: how many of how many passed, with its 95% Wilson score interval. */
export interface PassRate {
  passed: number;
  trials: number;
  /** passed / trials (0 when nothing ran). */
  rate: number;
  ci_low: number;
  ci_high: number;
}

/** The difference of two pass rates, B − A, with its 95% interval (Newcombe's hybrid score method). */
export interface RateDifference {
  /** B's pass rate minus A's, -1..1. */
  difference: number;
  ci_low: number;
  ci_high: number;
  /**
   * "better" or "worse" when the interval excludes 0 (B passes more, or less, often than A);
   * "within noise" when it contains 0: these trials cannot tell A and B apart.
   */
  verdict: ComparisonVerdict;
}

export type ComparisonVerdict = "better" | "worse" | "within noise";

/** The pass rate of `passed` of `trials`, with its 95% Wilson interval. */
export function passRate(passed: number, trials: number): PassRate {
  const [ciLow, ciHigh] = wilsonInterval(passed, trials);
  return { passed, trials, rate: trials === 0 ? 0 : passed / trials, ci_low: ciLow, ci_high: ciHigh };
}

/**
 * The 95% interval of p1 − p2 for two independent proportions x1/n1 and x2/n2: Newcombe's hybrid
 * score interval (method 10 of Newcombe 1998, "Interval estimation for the difference between
 * independent proportions: comparison of eleven methods", Statistics in Medicine 17:873–890), built
 * from each proportion's Wilson interval. Unlike the Wald interval it stays inside [-1, 1] and keeps
 * its coverage with few trials and rates near 0 or 1. With no trials on a side, the interval is [-1, 1].
 */
export function newcombeInterval(x1: number, n1: number, x2: number, n2: number): [number, number] {
  const p1 = n1 === 0 ? 0 : x1 / n1;
  const p2 = n2 === 0 ? 0 : x2 / n2;
  if (n1 === 0 || n2 === 0) return [-1, 1];
  const [l1, u1] = wilsonInterval(x1, n1);
  const [l2, u2] = wilsonInterval(x2, n2);
  const d = p1 - p2;
  const low = d - Math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2);
  const high = d + Math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2);
  return [Math.max(-1, low), Math.min(1, high)];
}

/** B's pass rate against A's: the difference B − A, its interval, and whether it is within noise. */
export function compareRates(a: Pick<PassRate, "passed" | "trials">, b: Pick<PassRate, "passed" | "trials">) {
  const [ciLow, ciHigh] = newcombeInterval(b.passed, b.trials, a.passed, a.trials);
  const difference = (b.trials === 0 ? 0 : b.passed / b.trials) - (a.trials === 0 ? 0 : a.passed / a.trials);
  return {
    difference,
    ci_low: ciLow,
    ci_high: ciHigh,
    verdict: rateVerdict(ciLow, ciHigh),
  } satisfies RateDifference;
}

/** "within noise" when the interval contains 0; otherwise the side it lies on. */
export function rateVerdict(ciLow: number, ciHigh: number): ComparisonVerdict {
  if (ciLow > 0) return "better";
  if (ciHigh < 0) return "worse";
  return "within noise";
}

/** The mean of the known values; undefined when none is known. */
export function meanOf(values: (number | undefined)[]): number | undefined {
  const known = values.filter((value): value is number => value !== undefined && Number.isFinite(value));
  return known.length === 0 ? undefined : known.reduce((sum, value) => sum + value, 0) / known.length;
}
