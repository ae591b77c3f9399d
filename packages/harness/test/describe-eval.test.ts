import { fileURLToPath } from "node:url";
import { EvalTestMetaSchema } from "@evals/logging";
import { type FixtureTest, runFixtureSuites } from "@evals/test-kit/vitest-fixture";
import { describe, expect, it } from "vitest";

const fixtureDir = fileURLToPath(new URL("./__fixtures__/describe-eval/", import.meta.url));

/** Runs the fixture suites with vitest's own API and returns every test by its full name. */
function runFixture(env: Record<string, string> = {}): Promise<Map<string, FixtureTest>> {
  return runFixtureSuites({ root: fixtureDir, include: ["suites.fixture.ts"], env });
}

describe("describeEval under vitest", () => {
  it("makes one test per case, attaches the case result, and fails with the reasons", async () => {
    const tests = await runFixture();
    expect([...tests.keys()]).toEqual([
      "basics > uses Bash",
      "basics > uses Read",
      "basics > not yet (waiting for a fixture)",
      "concurrent > a",
      "concurrent > b",
      "concurrent > c",
      "the concurrent suite ran two trials at a time, never more",
      "judged > list",
      "judged by the suite > list",
      "never judged > list",
      "the judge module is loaded only with EVAL_LLM_JUDGE=1",
      "needs claude > anything",
    ]);
    const passing = tests.get("basics > uses Bash")!;
    expect(passing.state).toBe("passed");
    const meta = EvalTestMetaSchema.parse(passing.meta);
    expect(meta.evalCase).toMatchObject({
      name: "uses Bash",
      suite: "basics",
      status: "passed",
      stats: { trials: 2, passed: 2, pass_hat_k: 1 },
      // The run's outcome is judged first, on every case (these runs ended normally).
      scores: [
        { scorer: "outcome", score: 1, passed: true },
        { scorer: "first-tool", score: 1, passed: true, threshold: 1 },
      ],
    });
    expect(meta.evalCase.file).toBe("test/__fixtures__/describe-eval/suites.fixture.ts");
    expect(meta.evalCase.trials.map((trial) => trial.run_id)).toHaveLength(2);
    expect(new Set(meta.evalCase.trials.map((trial) => trial.run_id)).size).toBe(2);

    const failing = tests.get("basics > uses Read")!;
    expect(failing.state).toBe("failed");
    expect(failing.errors[0]).toContain('Case "uses Read" failed: 0 of 2 trials passed');
    expect(failing.errors[0]).toContain("✗ first-tool: score 0.00, needs 1.00");
    expect(failing.errors[0]).toContain("[error] wrong-first-tool: expected Read first");
    // Reporters get the result of a failed case too.
    expect(EvalTestMetaSchema.parse(failing.meta).evalCase).toMatchObject({
      status: "failed",
      stats: { passed: 0 },
    });

    expect(tests.get("basics > not yet (waiting for a fixture)")!.state).toBe("skipped");
    for (const name of ["concurrent > a", "concurrent > b", "concurrent > c"])
      expect(tests.get(name)!.state).toBe("passed");
    expect(tests.get("the concurrent suite ran two trials at a time, never more")!.state).toBe("passed");
    // Without EVAL_LLM_JUDGE=1 the judge is neither loaded nor scored.
    expect(tests.get("the judge module is loaded only with EVAL_LLM_JUDGE=1")!.state).toBe("passed");
    const judged = EvalTestMetaSchema.parse(tests.get("judged > list")!.meta).evalCase;
    expect(judged.scores.map((score) => score.scorer)).toEqual(["outcome", "first-tool"]);
    // A suite can turn its judge on (or off) itself.
    const scorersOf = (name: string) =>
      EvalTestMetaSchema.parse(tests.get(name)!.meta).evalCase.scores.map((score) => score.scorer);
    expect(scorersOf("judged by the suite > list")).toEqual(["outcome", "first-tool", "suite-judge"]);
    expect(scorersOf("never judged > list")).toEqual(["outcome", "first-tool"]);
    // Without a working claude, a suite that needs one skips its cases.
    expect(tests.get("needs claude > anything")!.state).toBe("skipped");
  });

  it("adds the LLM judge to the scorers when EVAL_LLM_JUDGE=1", async () => {
    const tests = await runFixture({ EVAL_LLM_JUDGE: "1" });
    expect(tests.get("the judge module is loaded only with EVAL_LLM_JUDGE=1")!.state).toBe("passed");
    const judged = EvalTestMetaSchema.parse(tests.get("judged > list")!.meta).evalCase;
    expect(judged.scores.map((score) => [score.scorer, score.score])).toEqual([
      ["outcome", 1],
      ["first-tool", 1],
      ["llm-judge", 0.9],
    ]);
    // judgeEnabled: false keeps a suite's judge off even then.
    const never = EvalTestMetaSchema.parse(tests.get("never judged > list")!.meta).evalCase;
    expect(never.scores.map((score) => score.scorer)).toEqual(["outcome", "first-tool"]);
  });
});
