import { describe, expect, it } from "vitest";
import {
  formatCost,
  formatDifference,
  formatDuration,
  formatMetricDelta,
  formatPercent,
  formatSide,
  plural,
  truncate,
} from "../src/index.js";

/**
 * The formatters the console output, the vitest table, the comparison table and page, and the HTML
 * report's script (which bundles src/format.ts) all use: tested here once.
 */
describe("shared formatting", () => {
  it("formats durations from milliseconds to hours", () => {
    expect(formatDuration(850)).toBe("850ms");
    expect(formatDuration(999.6)).toBe("1000ms");
    expect(formatDuration(1234)).toBe("1.2s");
    expect(formatDuration(83_000)).toBe("1m23s");
    expect(formatDuration(4_000_000)).toBe("1h06m");
    expect(formatDuration(3_600_000)).toBe("1h00m");
    // What the page's data holds for "unknown" (JSON null) and what the console has (undefined).
    expect(formatDuration(null)).toBe("–");
    expect(formatDuration(undefined)).toBe("–");
    expect(formatDuration(Number.NaN)).toBe("–");
  });

  it("formats costs, $0 for a run that cost nothing and nothing for an unknown cost", () => {
    expect(formatCost(0.17103)).toBe("$0.171");
    expect(formatCost(12.5)).toBe("$12.50");
    expect(formatCost(0.0004)).toBe("<$0.001");
    expect(formatCost(0)).toBe("$0");
    expect(formatCost(undefined)).toBe("");
    expect(formatCost(null)).toBe("");
  });

  it("formats rates, counts and cut text", () => {
    expect(formatPercent(2 / 3)).toBe("66.7%");
    expect(formatPercent(1)).toBe("100%");
    expect(plural(1, "tool call")).toBe("1 tool call");
    expect(plural(3, "tool call")).toBe("3 tool calls");
    expect(plural(2, "child", "children")).toBe("2 children");
    expect(truncate("a  long\nline of text", 10)).toBe("a long li…");
    expect(truncate("short", 10)).toBe("short");
  });

  it("formats a pass rate with its interval, and a difference with its interval", () => {
    expect(formatSide({ passed: 2, trials: 3, rate: 2 / 3, ci_low: 0.2077, ci_high: 0.9385 })).toBe(
      "2/3 66.7% [21–94]",
    );
    expect(formatSide({ passed: 0, trials: 0, rate: 0, ci_low: 0, ci_high: 1 })).toBe("–");
    expect(formatDifference({ difference: -1, ci_low: -1, ci_high: -0.2085, verdict: "worse" })).toBe(
      "−100% [−100…−21]",
    );
    expect(
      formatDifference({ difference: 0, ci_low: -0.5615, ci_high: 0.5615, verdict: "within noise" }),
    ).toBe("±0% [−56…+56]");
  });

  it("formats the deltas of a comparison, signed as they round", () => {
    expect(formatMetricDelta("turns", -2)).toBe("−2.0");
    expect(formatMetricDelta("tool_calls", 1.25)).toBe("+1.3");
    expect(formatMetricDelta("tokens", -13_755.4)).toBe("−13,755");
    expect(formatMetricDelta("duration_ms", -1400)).toBe("−1.4s");
    expect(formatMetricDelta("duration_ms", 0)).toBe("±0ms");
    // A delta that rounds to zero is "±0.0" (the comparison page said "+0.0" before it shared this).
    expect(formatMetricDelta("turns", 0.04)).toBe("±0.0");
    expect(formatMetricDelta("tokens", undefined)).toBe("–");
  });
});
