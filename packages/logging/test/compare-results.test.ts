import { resolve } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import {
  compareResults,
  formatComparisonTable,
  ResultsComparisonSchema,
  trialMetrics,
} from "../src/compare-results.js";
import { newcombeInterval } from "../src/compare-stats.js";
import { readResults } from "../src/json-results.js";
import { loggingJsonSchema } from "../src/json-schemas.js";
import type { ResultsFile } from "../src/results-file.js";

/**
 * Two real results files of examples/find-todos, 3 trials a case, replayed by the real claude CLI
 * with every run kept (includeRuns "all"). a.json as it was written; b.json a second run, edited:
 * the trials of skill-then-grep carry the runs of grep-in-bash (the agent ignored the skill) and
 * failed, so B passes 0/3 of that case where A passed 3/3.
 */
const fixture = (name: string) => resolve(__dirname, "__fixtures__/compare", name);
const a = readResults(fixture("a.json"));
const b = readResults(fixture("b.json"));

describe("compareResults on two real results files", () => {
  const comparison = compareResults(a, b, { labels: ["main", "branch"] });
  const skill = comparison.cases.find((c) => c.id === "skill-then-grep")!;
  const bash = comparison.cases.find((c) => c.id === "grep-in-bash")!;

  it("matches the cases by suite and id, and names both runs", () => {
    expect(comparison.cases.map((c) => [c.suite, c.id])).toEqual([
      ["find-todos", "skill-then-grep"],
      ["find-todos", "grep-in-bash"],
    ]);
    expect(comparison.version).toBe(1);
    expect(comparison.only_in_a).toEqual([]);
    expect(comparison.only_in_b).toEqual([]);
    expect(comparison.a).toMatchObject({
      label: "main",
      suite: "find-todos",
      finished_at: a.meta.finished_at,
    });
    expect(comparison.b.label).toBe("branch");
  });

  it("gives each side's pass rate with its interval, and B − A with Newcombe's", () => {
    expect(skill.a).toMatchObject({ passed: 3, trials: 3, rate: 1 });
    expect(skill.b).toMatchObject({ passed: 0, trials: 3, rate: 0 });
    expect(skill.a.ci_low).toBeCloseTo(0.4385, 4); // Wilson 3/3
    expect(skill.b.ci_high).toBeCloseTo(0.5615, 4); // Wilson 0/3
    const [low, high] = newcombeInterval(0, 3, 3, 3);
    expect(skill.difference).toEqual({ difference: -1, ci_low: low, ci_high: high, verdict: "worse" });
    expect(high).toBeLessThan(0);
    expect(bash.difference).toMatchObject({ difference: 0, verdict: "within noise" });
    // Overall: the six trials of each side pooled, 3/6 against 6/6.
    expect(comparison.overall.a).toMatchObject({ passed: 6, trials: 6 });
    expect(comparison.overall.b).toMatchObject({ passed: 3, trials: 6 });
    expect(comparison.overall.difference.difference).toBeCloseTo(-0.5, 12);
    const [overallLow, overallHigh] = newcombeInterval(3, 6, 6, 6);
    expect(comparison.overall.difference).toMatchObject({ ci_low: overallLow, ci_high: overallHigh });
  });

  it("gives the deltas of mean turns, tool calls, tokens and duration from the runs", () => {
    const caseOf = (results: ResultsFile, id: string) => results.cases.find((c) => c.id === id)!;
    const mean = (
      results: ResultsFile,
      id: string,
      metric: "turns" | "tool_calls" | "tokens" | "duration_ms",
    ) => {
      const values = caseOf(results, id).trials.map((trial) => trialMetrics(trial)[metric]!);
      return values.reduce((sum, value) => sum + value, 0) / values.length;
    };
    for (const metric of ["turns", "tool_calls", "tokens", "duration_ms"] as const) {
      expect(skill.a.metrics[metric]).toBeCloseTo(mean(a, "skill-then-grep", metric), 9);
      expect(skill.deltas[metric]).toBeCloseTo(
        mean(b, "skill-then-grep", metric) - mean(a, "skill-then-grep", metric),
        9,
      );
    }
    // A's agent loaded the skill and then grepped (Skill, Grep); B's ran grep in Bash: other calls.
    const tools = (results: ResultsFile, id: string) =>
      caseOf(results, id)
        .trials[0]!.run!.events.filter((event) => event.type === "tool_call")
        .map((e) => e.name);
    expect(tools(a, "skill-then-grep")).toEqual(["Skill", "Grep"]);
    expect(tools(b, "skill-then-grep")).not.toEqual(tools(a, "skill-then-grep"));
    expect(skill.a.metrics.tool_calls).toBe(2);
    expect(skill.deltas.tool_calls).toBe((skill.b.metrics.tool_calls ?? Number.NaN) - 2);
    expect(skill.deltas.tokens).not.toBe(0);
  });

  it("lists the cases only one side ran, and leaves out deltas a side cannot know", () => {
    const renamed: ResultsFile = {
      ...b,
      cases: b.cases.map((c) => (c.id === "grep-in-bash" ? { ...c, id: "grep-in-bash-2" } : c)),
    };
    const withoutRuns: ResultsFile = {
      ...a,
      cases: a.cases.map((c) => ({ ...c, trials: c.trials.map(({ run: _run, ...trial }) => trial) })),
    };
    const partial = compareResults(withoutRuns, renamed);
    expect(partial.cases.map((c) => c.id)).toEqual(["skill-then-grep"]);
    expect(partial.only_in_a).toEqual([{ suite: "find-todos", id: "grep-in-bash", name: a.cases[1]!.name }]);
    expect(partial.only_in_b).toEqual([
      { suite: "find-todos", id: "grep-in-bash-2", name: b.cases[1]!.name },
    ]);
    expect(Object.keys(partial.cases[0]!.deltas)).toEqual(["duration_ms"]);
    expect(partial.overall.a.trials).toBe(3);
    expect(formatComparisonTable(partial)).toContain('write results with includeRuns "all"');
    expect(formatComparisonTable(compareResults(a, b))).not.toContain("includeRuns");
    // As runs_included "failed" writes it: the runs of failed cases only. B's runs are all of failures
    // for skill-then-grep, A's are gone: no mean of turns over a part of the trials.
    const failedRunsOnly = compareResults(withoutRuns, b);
    expect(failedRunsOnly.cases[0]!.b.metrics.turns).toBeDefined();
    expect(failedRunsOnly.cases[0]!.a.metrics.turns).toBeUndefined();
    const oneRunDropped: ResultsFile = {
      ...b,
      cases: b.cases.map((c, i) =>
        i === 0 ? { ...c, trials: c.trials.map((t, n) => (n === 0 ? { ...t, run: undefined } : t)) } : c,
      ),
    };
    const mixed = compareResults(a, oneRunDropped);
    expect(mixed.cases[0]!.b.metrics).not.toHaveProperty("turns");
    expect(mixed.cases[0]!.b.metrics).toHaveProperty("duration_ms");
    expect(mixed.overall.deltas).not.toHaveProperty("tokens");
  });

  it("validates against its zod schema and the shipped JSON Schema (schemas/comparison.json)", () => {
    const json = JSON.parse(JSON.stringify(comparison));
    expect(ResultsComparisonSchema.parse(json)).toEqual(json);
    const validate = new Ajv2020({ strict: false, allErrors: true }).compile(loggingJsonSchema("comparison"));
    expect(validate(json), JSON.stringify(validate.errors)).toBe(true);
    const broken = {
      ...json,
      overall: { ...json.overall, difference: { ...json.overall.difference, verdict: "meh" } },
    };
    expect(validate(broken)).toBe(false);
    expect(ResultsComparisonSchema.safeParse(broken).success).toBe(false);
  });

  it("prints a table with both sides, the difference, the verdict and the deltas", () => {
    const table = formatComparisonTable(comparison, { width: 200 });
    const lines = table.split("\n");
    expect(lines[0]).toContain("main: find-todos (h-compare");
    expect(lines[1]).toMatch(/case +main +branch +branch − main +verdict +Δturns +Δtools +Δtokens +Δtime/);
    const skillRow = lines.find((line) => line.includes("loads the todo-report skill"))!;
    expect(skillRow).toMatch(/3\/3 100% \[44–100\] +0\/3 0% \[0–56\] +−100% \[−100…−21\] +worse/);
    const bashRow = lines.find((line) => line.includes("runs grep in Bash"))!;
    expect(bashRow).toContain("±0% [−56…+56]");
    expect(bashRow).toContain("within noise");
    // 3/6 against 6/6: the interval ends just below 0 (−0.05%), so the suite is worse, not noise.
    const overall = lines.find((line) => line.includes("overall (2 cases)"))!;
    expect(overall).toMatch(/6\/6 100% \[61–100\] +3\/6 50% \[19–81\] +−50% \[−81…−0\] +worse/);
    expect(table).not.toContain("only in");
    expect(formatComparisonTable(compareResults(a, { ...b, cases: [] }))).toContain(
      "only in A: find-todos › skill-then-grep, find-todos › grep-in-bash",
    );
    // One suite: the rows name the case alone; with several, "suite › case".
    expect(skillRow.trimStart().startsWith("loads the todo-report skill")).toBe(true);
    const twoSuites = compareResults(
      { ...a, cases: [...a.cases, { ...a.cases[0]!, suite: "other" }] },
      { ...b, cases: [...b.cases, { ...b.cases[0]!, suite: "other" }] },
    );
    expect(formatComparisonTable(twoSuites, { width: 200 })).toContain("other › loads the todo-report skill");
  });
});
