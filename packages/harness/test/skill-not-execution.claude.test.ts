import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { claudeCodeRunner, skipIfNoClaude } from "@evals/claude-code";
import { toolSequence } from "@evals/core";
import { executionBalance, loadCases, scorersForCase } from "@evals/evaluators";
import { describe, expect, it } from "vitest";
import { evaluateCase, runCase } from "../src/index.js";

/*
 * execution-balance counted Skill (and Agent) calls as execution. A real run that loads a skill
 * first: the find-todos example's "skill-then-grep" case, replayed from its recording by the real
 * claude CLI (Skill todo-report, then Grep).
 */
const findTodos = (path: string) =>
  fileURLToPath(new URL(`../../../examples/find-todos/${path}`, import.meta.url));
const claudeBin = resolve(__dirname, "../../../node_modules/.bin/claude");

describe("execution-balance on a real run that loads a skill before it reads (replayed)", () => {
  it("does not count the Skill call as execution", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    const evalCase = loadCases(findTodos("cases/find-todos.yaml")).find((c) => c.id === "skill-then-grep")!;
    const outcome = await evaluateCase(evalCase, 0, {
      suite: "find-todos",
      scorers: scorersForCase(evalCase),
      cassette: { dir: findTodos("cassettes"), mode: "strict" },
      agent: claudeCodeRunner,
      task: (_input, trial) => runCase(trial, evalCase, { runAgent: { options: { claudeBin } } }),
    });
    const run = outcome.runs[0]!.run;
    expect(toolSequence(run)).toEqual(["Skill", "Grep"]);
    const balance = executionBalance(run, { severity: "error" });
    expect(balance.violations).toEqual([]);
    expect(balance.metadata).toMatchObject({ executions: 0 });
    expect(outcome.passed).toBe(true);
  }, 180_000);
});
