import { describe, expect, it } from "vitest";
import { compareRates, newcombeInterval, passRate, rateVerdict } from "../src/compare-stats.js";

/**
 * Newcombe RG (1998), "Interval estimation for the difference between independent proportions:
 * comparison of eleven methods", Statistics in Medicine 17:873–890, Table II: the eight worked
 * examples (a)–(h), method 10 (score method with no continuity correction, the hybrid of Wilson
 * intervals), given to 4 decimals.
 */
const NEWCOMBE_TABLE_II: [
  label: string,
  x1: number,
  n1: number,
  x2: number,
  n2: number,
  low: number,
  high: number,
][] = [
  ["(a) 56/70 − 48/80", 56, 70, 48, 80, 0.0524, 0.3339],
  ["(b) 9/10 − 3/10", 9, 10, 3, 10, 0.1705, 0.809],
  ["(c) 6/7 − 2/7", 6, 7, 2, 7, 0.0582, 0.8062],
  ["(d) 5/56 − 0/29", 5, 56, 0, 29, -0.0381, 0.1926],
  ["(e) 0/10 − 0/20", 0, 10, 0, 20, -0.1611, 0.2775],
  ["(f) 0/10 − 0/10", 0, 10, 0, 10, -0.2775, 0.2775],
  ["(g) 10/10 − 0/20", 10, 10, 0, 20, 0.6791, 1],
  ["(h) 10/10 − 0/10", 10, 10, 0, 10, 0.6075, 1],
];

describe("newcombeInterval", () => {
  it.each(NEWCOMBE_TABLE_II)("matches Newcombe 1998 Table II %s", (_label, x1, n1, x2, n2, low, high) => {
    const [ciLow, ciHigh] = newcombeInterval(x1, n1, x2, n2);
    expect(ciLow).toBeCloseTo(low, 4);
    expect(ciHigh).toBeCloseTo(high, 4);
  });

  it("is the mirror image when the sides swap", () => {
    const [low, high] = newcombeInterval(56, 70, 48, 80);
    const [swappedLow, swappedHigh] = newcombeInterval(48, 80, 56, 70);
    expect(swappedLow).toBeCloseTo(-high, 12);
    expect(swappedHigh).toBeCloseTo(-low, 12);
  });

  it("says nothing is known when a side ran no trial", () => {
    expect(newcombeInterval(3, 3, 0, 0)).toEqual([-1, 1]);
  });
});

describe("passRate", () => {
  // Newcombe RG (1998), "Two-sided confidence intervals for the single proportion", Statistics in
  // Medicine 17:857–872, Table I, method 3 (Wilson score, no continuity correction): 81/263.
  it("carries the Wilson interval of Newcombe 1998's single-proportion example", () => {
    const rate = passRate(81, 263);
    expect(rate.rate).toBeCloseTo(0.308, 3);
    expect(rate.ci_low).toBeCloseTo(0.2553, 4);
    expect(rate.ci_high).toBeCloseTo(0.3662, 4);
  });
});

describe("compareRates", () => {
  it("gives B − A and says within noise when the interval contains 0", () => {
    // 2 of 3 against 3 of 3: a third more passes, but three trials a side cannot tell them apart.
    const difference = compareRates({ passed: 2, trials: 3 }, { passed: 3, trials: 3 });
    expect(difference.difference).toBeCloseTo(1 / 3, 12);
    expect(difference.ci_low).toBeLessThan(0);
    expect(difference.ci_high).toBeGreaterThan(0);
    expect(difference.verdict).toBe("within noise");
  });

  it("says better or worse when the interval excludes 0 (Newcombe's example (b) both ways)", () => {
    const better = compareRates({ passed: 3, trials: 10 }, { passed: 9, trials: 10 });
    expect(better.difference).toBeCloseTo(0.6, 12);
    expect(better.ci_low).toBeCloseTo(0.1705, 4);
    expect(better.verdict).toBe("better");
    const worse = compareRates({ passed: 9, trials: 10 }, { passed: 3, trials: 10 });
    expect(worse.ci_high).toBeCloseTo(-0.1705, 4);
    expect(worse.verdict).toBe("worse");
  });

  it("is within noise for identical results", () => {
    expect(compareRates({ passed: 5, trials: 5 }, { passed: 5, trials: 5 }).verdict).toBe("within noise");
    expect(rateVerdict(0, 0.5)).toBe("within noise");
  });
});
