import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  CaseResultSchema,
  caseResult,
  failureSummary,
  formatCasesTable,
  gitInfo,
  trialStatistics,
  wilsonInterval,
} from "../src/index.js";

const trial = (passed: boolean, score = passed ? 1 : 0) => ({
  status: passed ? ("passed" as const) : ("failed" as const),
  scores: [{ scorer: "s", score, passed }],
});

describe("trialStatistics", () => {
  it("computes pass rate, Wilson interval, pass@k and pass^k", () => {
    const stats = trialStatistics([trial(true), trial(false), trial(true), trial(false), trial(false)], {
      k: 2,
    });
    expect(stats).toMatchObject({ trials: 5, passed: 2, pass_rate: 0.4, k: 2 });
    // pass@2 = 1 - C(3,2)/C(5,2) = 0.7; pass^2 = C(2,2)/C(5,2) = 0.1
    expect(stats.pass_at_k).toBeCloseTo(0.7, 10);
    expect(stats.pass_hat_k).toBeCloseTo(0.1, 10);
    expect(stats.flip_rate).toBeCloseTo(3 / 4, 10);
    expect(stats.mean_score).toBeCloseTo(0.4, 10);
    expect(stats.score_stddev).toBeCloseTo(Math.sqrt(0.3), 10);
  });

  it("uses k = n by default: pass@n is 'any passed', pass^n is 'all passed'", () => {
    expect(trialStatistics([trial(true), trial(false), trial(false)])).toMatchObject({
      k: 3,
      pass_at_k: 1,
      pass_hat_k: 0,
    });
    expect(trialStatistics([trial(true), trial(true)])).toMatchObject({
      k: 2,
      pass_at_k: 1,
      pass_hat_k: 1,
      flip_rate: 0,
    });
    expect(trialStatistics([])).toMatchObject({ trials: 0, pass_rate: 0, ci_low: 0, ci_high: 1 });
  });

  it("gives the textbook Wilson intervals", () => {
    const [low, high] = wilsonInterval(8, 10);
    expect(low).toBeCloseTo(0.4902, 4);
    expect(high).toBeCloseTo(0.9433, 4);
    const [low0, high0] = wilsonInterval(0, 5);
    expect(low0).toBe(0);
    expect(high0).toBeCloseTo(0.4345, 4);
  });
});

describe("caseResult", () => {
  it("derives scores, status, violations, duration and cost from the trials", () => {
    const result = caseResult({
      id: "c",
      name: "case",
      trials: [
        {
          status: "passed",
          scores: [
            { scorer: "trajectory", score: 1, passed: true, threshold: 0.7 },
            { scorer: "approval", score: 1, passed: true },
          ],
          duration_ms: 100,
          cost_usd: 0.5,
        },
        {
          status: "failed",
          scores: [
            { scorer: "trajectory", score: 0.5, passed: false, threshold: 0.7 },
            { scorer: "approval", score: 0, passed: false },
          ],
          violations: [{ rule: "approval-gate", type: "missing", severity: "error", message: "no approval" }],
          duration_ms: 300,
          error: "approval 0 < 1",
        },
      ],
    });
    expect(CaseResultSchema.parse(result)).toEqual(result);
    expect(result.status).toBe("failed");
    expect(result.scores).toEqual([
      { scorer: "trajectory", score: 0.75, passed: true, threshold: 0.7 },
      { scorer: "approval", score: 0.5, passed: false },
    ]);
    expect(result.violations).toEqual([expect.objectContaining({ rule: "approval-gate", trial: 1 })]);
    expect(result.trials.map((t) => t.trial)).toEqual([0, 1]);
    expect(result.duration_ms).toBe(400);
    expect(result.cost_usd).toBe(0.5);
    expect(result.error).toBe("approval 0 < 1");
    expect(result.stats).toMatchObject({ trials: 2, passed: 1 });
    expect(result.tags).toEqual([]);
  });

  it("lets the harness decide the verdict and the numbers", () => {
    const result = caseResult({
      id: "c",
      name: "c",
      status: "passed",
      duration_ms: 9,
      trials: [trial(true), trial(false)],
    });
    expect(result.status).toBe("passed");
    expect(result.duration_ms).toBe(9);
    expect(
      caseResult({ id: "e", name: "e", trials: [{ status: "error", scores: [] }, trial(true)] }).status,
    ).toBe("error");
    expect(caseResult({ id: "s", name: "s", trials: [] }).status).toBe("skipped");
  });

  it("explains a failure in one line", () => {
    const result = caseResult({
      id: "c",
      name: "c",
      trials: [
        {
          status: "failed",
          scores: [{ scorer: "trajectory", score: 0.4, passed: false, threshold: 0.8 }],
          violations: [1, 2, 3].map((n) => ({
            rule: "r",
            type: `t${n}`,
            severity: "error" as const,
            message: `problem ${n}\nwith details`,
          })),
        },
      ],
    });
    expect(failureSummary(result)).toBe(
      "r/t1: problem 1; r/t2: problem 2; +1 more violations; trajectory 0.40 < 0.80",
    );
    expect(failureSummary({ ...result, status: "passed" })).toBe("");
  });
});

describe("formatCasesTable", () => {
  it("shows one mean score column when there are too many scorers, and fits the width", () => {
    const scores = ["a", "b", "c", "d", "e"].map((scorer, i) => ({
      scorer,
      score: i === 4 ? 0 : 1,
      passed: i !== 4,
    }));
    const text = formatCasesTable(
      [
        caseResult({
          id: "x",
          name: "a case with a rather long name that will not fit",
          suite: "s",
          trials: [{ status: "failed", scores }],
        }),
      ],
      { width: 72 },
    );
    const lines = text.split("\n");
    expect(lines[0]).toBe("s · 0 of 1 case passed (0%) · 0ms");
    expect(lines[1]).toMatch(/^ {2}result {2}case +trials +score {2}violations {2}time {2}est\. cost$/);
    expect(lines[2]).toMatch(/^ {2}✗ fail {2}a case with … +0\/1 {2}0\.80 \(1 ✗\)/);
    expect(Math.max(...lines.map((l) => [...l].length))).toBeLessThanOrEqual(72);
  });
});

describe("formatCasesTable's header", () => {
  it("shows the run's wall time for one suite (each case its own trials' time), and costs as estimates", () => {
    const cases = ["a", "b"].map((id) =>
      caseResult({
        id,
        name: id,
        suite: "s",
        trials: [{ status: "passed", scores: [], duration_ms: 20_000, cost_usd: 0.1, origin: "live" }],
      }),
    );
    const [head, columns, first] = formatCasesTable(cases, { wallTimeMs: 25_000 }).split("\n");
    expect(head).toBe("s · 2 of 2 cases passed (100%) · 25.0s · ≈$0.200 (estimated)");
    expect(columns).toMatch(/ time {2}est\. cost$/);
    expect(first).toMatch(/ 20\.0s +\$0\.100$/);
    // Without the wall time (several suites, or none given), the cases' durations summed.
    expect(formatCasesTable(cases).split("\n")[0]).toContain("· 40.0s ·");
  });
});

describe("gitInfo", () => {
  it("reads the commit and branch of a checkout, and falls back to CI variables elsewhere", () => {
    const here = gitInfo(process.cwd(), {});
    expect(here.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(typeof here.dirty).toBe("boolean");
    const dir = mkdtempSync(join(tmpdir(), "evals-nogit-"));
    try {
      expect(gitInfo(dir, {})).toEqual({});
      expect(gitInfo(dir, { GITHUB_SHA: "abc1234", GITHUB_REF_NAME: "main" })).toEqual({
        commit: "abc1234",
        branch: "main",
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
