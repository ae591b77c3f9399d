// Eval suites run by describe-eval.test.ts through vitest's own API, to check what describeEval
// registers, attaches and reports. Not run directly (the package's tests match *.test.ts only).
import { evaluatorResult, runFromStreamJson, type Scorer } from "@evals/core";
import { expect, test } from "vitest";
import { claudeAvailable, claudeCodeRunner } from "@evals/claude-code";
import { describeEval } from "../../../src/vitest.js";

const run = runFromStreamJson(
  [
    { type: "assistant", message: { id: "m1", content: [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "ls" } }] } },
    { type: "user", message: { content: [{ type: "tool_result", tool_use_id: "t1", content: "a.txt" }] } },
    { type: "result", subtype: "success", is_error: false, num_turns: 2, total_cost_usd: 0.01 },
  ],
  { prompts: ["list"] },
);

/** Passes when the run's first tool is the case's expected tool. */
const firstTool: Scorer<{ expected: string }> = {
  name: "first-tool",
  threshold: 1,
  score: ({ run, case: evalCase }) => {
    const first = run.events.find((event) => event.type === "tool_call");
    const ok = first?.type === "tool_call" && first.name === evalCase?.expected;
    return evaluatorResult({
      evaluator: "first-tool",
      passed: ok,
      score: ok ? 1 : 0,
      violations: ok
        ? []
        : [{ rule: "first-tool", type: "wrong-first-tool", severity: "error", message: `expected ${evalCase?.expected} first` }],
    });
  },
};

describeEval("basics", {
  data: async () => [
    { name: "uses Bash", input: "list", expected: "Bash" },
    { name: "uses Read", input: "read", expected: "Read" },
    { name: "not yet", input: "later", expected: "Bash", skip: "waiting for a fixture" },
  ],
  task: () => run,
  scorers: [firstTool],
  trials: 2,
});

let active = 0;
let maxActive = 0;
describeEval("concurrent", {
  data: [{ input: "a" }, { input: "b" }, { input: "c" }],
  task: async () => {
    active++;
    maxActive = Math.max(maxActive, active);
    await new Promise((resolve) => setTimeout(resolve, 150));
    active--;
    return run;
  },
  scorers: [],
  trials: 2,
  concurrency: 2,
});

test("the concurrent suite ran two trials at a time, never more", () => {
  expect(maxActive).toBe(2);
});

describeEval("judged", {
  data: [{ input: "list", expected: "Bash" }],
  task: () => run,
  scorers: [firstTool],
  judge: async () => (await import("./judge.fixture.js")).judge,
});

// A suite that decides for itself: judged always, or never, whatever EVAL_LLM_JUDGE says.
const suiteJudge: Scorer = {
  name: "suite-judge",
  score: () => evaluatorResult({ evaluator: "suite-judge", passed: true, score: 0.8 }),
};
describeEval("judged by the suite", {
  data: [{ input: "list", expected: "Bash" }],
  task: () => run,
  scorers: [firstTool],
  judge: () => suiteJudge,
  judgeEnabled: true,
});
describeEval("never judged", {
  data: [{ input: "list", expected: "Bash" }],
  task: () => run,
  scorers: [firstTool],
  judge: () => suiteJudge,
  judgeEnabled: false,
});

test("the judge module is loaded only with EVAL_LLM_JUDGE=1", () => {
  expect((globalThis as { judgeLoaded?: boolean }).judgeLoaded === true).toBe(process.env.EVAL_LLM_JUDGE === "1");
});

describeEval("needs claude", {
  data: [{ input: "anything" }],
  task: () => run,
  scorers: [],
  // Claude Code's runner, as it answers where no claude is installed.
  agent: {
    ...claudeCodeRunner,
    unavailable: () => {
      const claude = claudeAvailable({ claudeBin: "/nonexistent/claude" });
      return claude.available ? undefined : claude.reason;
    },
  },
  requiresAgent: true,
});
