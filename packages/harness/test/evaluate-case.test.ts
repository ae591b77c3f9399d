import { type EvaluatorResult, evaluatorResult, runFromStreamJson, type Scorer } from "@evals/core";
import { outcomeScorer, parseCase, trajectoryScorer } from "@evals/evaluators";
import { CaseResultSchema } from "@evals/logging";
import { fixtureStream } from "@evals/test-kit/claude-fixtures";
import { describe, expect, it } from "vitest";
import { type CaseSettings, evaluateCase, type TrialContext } from "../src/index.js";

/** The real multi-tool run: Bash, Read, Bash (blocked), Read (fails), Write (denied). */
const multiTool = () => runFromStreamJson(fixtureStream("multi-tool"), { prompts: ["do the steps"] });

/** A scorer whose verdict per trial comes from a list (by the order runs were scored). */
function scriptedScorer(name: string, scores: number[], extra: Partial<EvaluatorResult> = {}): Scorer {
  let call = 0;
  return {
    name,
    score: () => {
      const score = scores[call++ % scores.length]!;
      return evaluatorResult({ evaluator: name, passed: score === 1, score, ...extra });
    },
  };
}

/**
 * These tests are about scorers, thresholds and messages: the run's outcome is not judged (outcome
 * "any"), so no "outcome" scorer joins theirs (see "evaluateCase: the run's outcome").
 */
function settings(overrides: Partial<CaseSettings<{ input: string }>>): CaseSettings<{ input: string }> {
  return { suite: "unit suite", task: () => multiTool(), scorers: [], outcome: "any", ...overrides };
}

describe("evaluateCase: trials", () => {
  it("runs every trial as an independent call with its own run id", async () => {
    const seen: TrialContext<{ input: string }>[] = [];
    const outcome = await evaluateCase(
      { input: "do the steps" },
      0,
      settings({
        trials: 4,
        task: (input, context) => {
          expect(input).toBe("do the steps");
          seen.push(context);
          return multiTool();
        },
      }),
    );
    expect(seen.map((context) => context.trial).sort()).toEqual([0, 1, 2, 3]);
    const runIds = seen.map((context) => context.runId);
    expect(new Set(runIds).size).toBe(4);
    for (const id of runIds) expect(id).toMatch(/^unit-suite-do-the-steps-t[1-4]-/);
    expect(outcome.result.trials.map((trial) => trial.run_id).sort()).toEqual([...runIds].sort());
    expect(seen.every((context) => context.agentOptions.runId === context.runId)).toBe(true);
  });

  it("reports mean score, pass@k, pass^k and the 95% Wilson interval of the pass rate", async () => {
    const outcome = await evaluateCase(
      { input: "x" },
      0,
      settings({
        trials: 4,
        passRule: "any",
        scorers: [scriptedScorer("flaky", [1, 0.5, 1, 0.5])],
      }),
    );
    const stats = outcome.result.stats!;
    expect(stats).toMatchObject({ trials: 4, passed: 2, pass_rate: 0.5, k: 4, pass_at_k: 1, pass_hat_k: 0 });
    expect(stats.mean_score).toBeCloseTo(0.75);
    expect(stats.ci_low).toBeCloseTo(0.15, 2);
    expect(stats.ci_high).toBeCloseTo(0.85, 2);
    expect(outcome.passed).toBe(true);
    expect(() => CaseResultSchema.parse(outcome.result)).not.toThrow();
  });

  it("decides the case by the suite's pass rule", async () => {
    const verdict = async (passRule: CaseSettings<{ input: string }>["passRule"]) =>
      (
        await evaluateCase(
          { input: "x" },
          0,
          settings({ trials: 4, passRule, scorers: [scriptedScorer("s", [1, 0, 1, 0])] }),
        )
      ).passed;
    expect(await verdict("all")).toBe(false);
    expect(await verdict("any")).toBe(true);
    expect(await verdict({ atLeast: 0.5 })).toBe(true);
    expect(await verdict({ atLeast: 0.75 })).toBe(false);
    await expect(verdict({ atLeast: 2 })).rejects.toThrow(/passRule must be/);
  });

  it("makes a trial whose task throws an error, not a pass, and says why", async () => {
    const outcome = await evaluateCase(
      { input: "x", name: "throws" },
      0,
      settings({
        trials: 2,
        task: (_input, context) => {
          if (context.trial === 1) throw new Error("the fixture repo is missing");
          return multiTool();
        },
        scorers: [scriptedScorer("ok", [1])],
      }),
    );
    expect(outcome.result.trials.map((trial) => trial.status).sort()).toEqual(["error", "passed"]);
    expect(outcome.passed).toBe(false);
    expect(outcome.message).toContain("Trial 2 errored");
    expect(outcome.message).toContain("the fixture repo is missing");
  });

  it("stops a trial at its timeout, and abandons a task that ignores the signal", async () => {
    const outcome = await evaluateCase(
      { input: "x" },
      0,
      settings({
        timeout: 50,
        trialGraceMs: 50,
        task: (_input, context) =>
          new Promise((_, reject) => {
            context.signal.addEventListener("abort", () => reject(new Error("stopped by the signal")));
          }),
      }),
    );
    expect(outcome.result.status).toBe("error");
    expect(outcome.message).toContain("stopped by the signal");
    const ignoring = await evaluateCase(
      { input: "x" },
      0,
      settings({ timeout: 30, trialGraceMs: 30, task: () => new Promise(() => {}) }),
    );
    expect(ignoring.message).toContain("the trial did not finish within its timeout of 30 ms");
  });
});

describe("evaluateCase: the run's outcome", () => {
  const maxTurns = () => runFromStreamJson(fixtureStream("max-turns"), { prompts: ["maxturns"] });

  it("fails a case that asserts nothing when the real run stopped at max turns, first among the scorers", async () => {
    const outcome = await evaluateCase({ input: "loop" }, 0, {
      suite: "outcome",
      task: () => maxTurns(),
      scorers: [scriptedScorer("fine", [1])],
    });
    expect(outcome.passed).toBe(false);
    expect(outcome.result.trials[0]?.scores.map((score) => [score.scorer, score.passed])).toEqual([
      ["outcome", false],
      ["fine", true],
    ]);
    expect(outcome.message).toContain("[error] max-turns: the agent stopped at the maximum of 2 turns");
  });

  it("passes it when the case, or the suite, expects that outcome", async () => {
    const base = { suite: "outcome", task: () => maxTurns(), scorers: [] };
    expect((await evaluateCase({ input: "loop", outcome: "max_turns" as const }, 0, base)).passed).toBe(true);
    expect((await evaluateCase({ input: "loop" }, 0, { ...base, outcome: "max_turns" })).passed).toBe(true);
    // A case file's case that says nothing about its outcome leaves it to the suite.
    const parsed = parseCase({ id: "loop", prompt: "loop" });
    expect((await evaluateCase(parsed, 0, { ...base, outcome: "max_turns" })).passed).toBe(true);
    expect(
      (await evaluateCase({ input: "loop" }, 0, { ...base, outcome: "any" })).result.trials[0]?.scores,
    ).toEqual([]);
  });

  it("leaves the judging to the suite's own outcome scorer when it has one", async () => {
    const outcome = await evaluateCase({ input: "loop" }, 0, {
      suite: "outcome",
      task: () => maxTurns(),
      scorers: [outcomeScorer({ expected: "failure" })],
    });
    expect(outcome.passed).toBe(true);
    expect(outcome.result.trials[0]?.scores.map((score) => score.scorer)).toEqual(["outcome"]);
  });

  it("counts the cost of a background subagent's run once", async () => {
    const outcome = await evaluateCase({ input: "background" }, 0, {
      suite: "outcome",
      task: () => runFromStreamJson(fixtureStream("background-subagent"), { prompts: ["background"] }),
      scorers: [],
    });
    expect(outcome.passed).toBe(true);
    // A Run handed over by the task was not paid for here: its cost is the recording's, counted once.
    expect(outcome.result.trials[0]?.recorded_cost_usd).toBe(0.212956);
    expect(outcome.result.trials[0]?.cost_usd).toBeUndefined();
  });
});

describe("evaluateCase: thresholds and messages", () => {
  it("fails with the scorer, its score and threshold, and the missing calls", async () => {
    const outcome = await evaluateCase(
      { input: "do the steps", name: "lists then greps" },
      0,
      settings({
        scorers: [
          trajectoryScorer({
            expected: ["Bash", "Read", "Grep"],
            mode: "superset",
            engine: "builtin",
            threshold: 1,
          }),
        ],
      }),
    );
    expect(outcome.passed).toBe(false);
    const message = outcome.message!;
    expect(message.split("\n")[0]).toBe('Case "lists then greps" failed.');
    expect(message).toMatch(/✗ trajectory: score 0\.\d\d, needs 1\.00/);
    expect(message).toMatch(/\[error\] missing-call: expected call #3 Grep.* was never made/);
    expect(outcome.result.violations[0]).toMatchObject({
      scorer: "trajectory",
      type: "missing-call",
      trial: 0,
    });
    expect(outcome.result.scores).toEqual([
      expect.objectContaining({ scorer: "trajectory", passed: false, threshold: 1 }),
    ]);
  });

  it("explains a scorer with no threshold by its own verdict and its violations or evidence", async () => {
    const outcome = await evaluateCase(
      { input: "x" },
      0,
      settings({
        scorers: [
          scriptedScorer("approval", [0], {
            violations: [
              {
                rule: "approval-gate",
                type: "missing-approval",
                severity: "error",
                message: "Write ran without asking first",
                pointer: { event_index: 10, tool_use_id: "toolu_fake0014", agent: "main" },
              },
            ],
          }),
          scriptedScorer("style", [0.2], {
            evidence: [{ type: "note", description: "used cat instead of Read" }],
          }),
          scriptedScorer("fine", [1]),
          {
            name: "broken",
            score: () => {
              throw new Error("no expected calls given");
            },
          },
        ],
      }),
    );
    const message = outcome.message!;
    expect(message).toContain(
      "✗ approval: score 0.00; it has no threshold, so its own verdict (failed) decides",
    );
    expect(message).toContain(
      "- [error] missing-approval: Write ran without asking first (event 10, toolu_fake0014)",
    );
    expect(message).toContain("- note: used cat instead of Read");
    expect(message).toContain("✗ broken threw: no expected calls given");
    expect(message).toContain("passed: fine 1.00");
    expect(message).not.toMatch(/\bfalse\b/);
  });

  it("applies a number to every scorer, lets per-scorer thresholds win, and checks the overall mean", async () => {
    const run = async (threshold: CaseSettings<{ input: string }>["threshold"], own?: number) =>
      evaluateCase(
        { input: "x" },
        0,
        settings({
          threshold,
          scorers: [
            { ...scriptedScorer("a", [0.7]), ...(own !== undefined ? { threshold: own } : {}) },
            scriptedScorer("b", [0.9]),
          ],
        }),
      );
    expect((await run(0.8)).message).toContain("✗ a: score 0.70, needs 0.80");
    expect((await run(0.8, 0.6)).passed).toBe(true); // the scorer's own threshold wins over a number
    expect((await run({ scorers: { a: 0.5 } }, 0.9)).result.scores[0]).toMatchObject({
      passed: true,
      threshold: 0.5,
    });
    const overall = await run({ overall: 0.85, scorers: { a: 0.5, b: 0.5 } });
    expect(overall.passed).toBe(false);
    expect(overall.message).toContain("✗ overall: mean score 0.80 is below the overall threshold 0.85");
  });

  it("tells the trials apart and states the statistics when several failed", async () => {
    const outcome = await evaluateCase(
      { input: "x" },
      0,
      settings({ trials: 3, scorers: [scriptedScorer("s", [1, 0, 0])] }),
    );
    const message = outcome.message!;
    expect(message.split("\n")[0]).toBe(
      'Case "x" failed: 1 of 3 trials passed, and the suite needs every trial to pass.',
    );
    expect(message).toContain(
      "mean score 0.33 · pass rate 33.3% (95% CI 6.1%–79.2%) · pass@3 1.00 · pass^3 0.00",
    );
    expect(message.match(/Trial \d failed/g)).toHaveLength(2);
  });
});
