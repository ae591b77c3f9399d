import { type EvaluatorResult, MAIN_AGENT, RunBuilder, type RunEventInput } from "@evals/core";
import { fixtureRun } from "@evals/test-kit/claude-fixtures";
import { describe, expect, it } from "vitest";
import { executionBalance } from "../src/index.js";
import { executionBalanceRule } from "../src/rules/execution-balance.js";
import { script, streamedCheck, types } from "./helpers.js";

describe("execution-balance", () => {
  it("is satisfied by the real multi-tool run (reads before the denied Write)", () => {
    const result = executionBalance(fixtureRun("multi-tool"));
    expect(result.violations).toEqual([]);
    expect(result.metadata).toMatchObject({ reads: 4, executions: 1 });
  });

  it("does not count delegation as execution (real runs: an Agent call first is fine)", () => {
    // The subagent run starts with an Agent call; the rules run delegates after grep/find.
    for (const name of ["subagent", "rules"] as const) {
      const result = executionBalance(fixtureRun(name), { severity: "error" });
      expect(types(result), name).toEqual([]);
      expect(result.passed, name).toBe(true);
    }
    expect(executionBalance(fixtureRun("rules")).metadata).toMatchObject({ reads: 3, executions: 1 });
  });

  it("still warns when the first execution comes before any read", () => {
    const run = script()
      .subagent("general-purpose", (s) => s.call("Read", { file_path: "a.ts" }))
      .call("Write", { file_path: "b.ts", content: "x" })
      .build();
    expect(types(executionBalance(run, { perAgent: false }))).toEqual([]);
    const mainOnly = executionBalance(run);
    expect(types(mainOnly)).toEqual(["execution-before-read"]);
    expect(mainOnly.violations[0]?.message).toMatch(/^Write b\.ts ran after 0 reads/);
  });

  it("judges each agent on its own calls", () => {
    const run = script()
      .call("Read", { file_path: "a.ts" })
      .subagent("general-purpose", (s) => s.call("Edit", { file_path: "b.ts" }))
      .build();
    const perAgent = executionBalance(run);
    expect(types(perAgent)).toEqual(["execution-before-read"]);
    expect(perAgent.violations[0]?.pointer?.agent).toBe("agent_general-purpose_2");
    // Taken as one, the read comes first (the Agent call is the first execution).
    expect(types(executionBalance(run, { perAgent: false }))).toEqual([]);
  });

  it("flags a low read/execute ratio", () => {
    const run = script()
      .call("Read", { file_path: "a.ts" })
      .call("Edit", { file_path: "a.ts" })
      .call("Edit", { file_path: "b.ts" })
      .call("Bash", { command: "npm test" })
      .build();
    const result = executionBalance(run);
    expect(types(result)).toEqual(["low-read-ratio"]);
    expect(result.violations[0]?.evidence).toMatchObject({ reads: 1, executions: 3 });
    expect(executionBalance(run, { minReadRatio: 0.3 }).violations).toEqual([]);
    expect(executionBalance(run, { minReadsBeforeExecution: 2, minReadRatio: 0 }).violations[0]?.type).toBe(
      "execution-before-read",
    );
  });

  it("bashIsExecution: a read-only Bash command is an execution, as OpenAgentsControl counts it", () => {
    const run = script().call("Bash", { command: 'echo "hello world"' }).build();
    expect(types(executionBalance(run))).toEqual([]);
    expect(types(executionBalance(run, { bashIsExecution: true }))).toEqual([
      "execution-before-read",
      "low-read-ratio",
    ]);
  });
});

describe("execution-balance while the run is read", () => {
  it("judges agent by agent as the whole run, though a subagent executes before the main agent does", () => {
    const run = script()
      .subagent("general-purpose", (s) =>
        s.call("Edit", { file_path: "a.ts" }).call("Read", { file_path: "a.ts" }),
      )
      .call("Write", { file_path: "b.ts", content: "x" })
      .call("Bash", { command: "rm -rf build" }, { denied: true })
      .subagent("Explore", (s) => s.call("Grep", { pattern: "x" }).call("Bash", { command: "npm test" }))
      .build();
    for (const options of [{}, { perAgent: false }, { bashIsExecution: true, minReadRatio: 2 }]) {
      const streamed = streamedCheck(executionBalanceRule, run, options);
      expect(streamed).toEqual(executionBalanceRule.check(run, options));
    }
    const streamed = streamedCheck(executionBalanceRule, run) as EvaluatorResult;
    // main (its first call is the first Agent call) is judged first, then each subagent.
    expect(types(streamed)).toEqual(["execution-before-read", "execution-before-read"]);
    expect(streamed.violations.map((item) => item.pointer?.agent)).toEqual([
      MAIN_AGENT,
      "agent_general-purpose_1",
    ]);
    expect(streamed.evidence.map((item) => item.description)).toEqual([
      'agent agent_Explore_6 read 1× before Bash "npm test"',
    ]);
  });

  it("counts parallel calls in call order whatever order their results came in", () => {
    const builder = new RunBuilder(["stream"]);
    const push = (event: RunEventInput) => builder.push(event);
    push({ type: "tool_call", agent: MAIN_AGENT, id: "a", name: "Edit", input: { file_path: "a.ts" } });
    push({ type: "tool_call", agent: MAIN_AGENT, id: "b", name: "Read", input: { file_path: "a.ts" } });
    push({ type: "tool_result", agent: MAIN_AGENT, id: "b", output: "x", is_error: false });
    push({ type: "tool_result", agent: MAIN_AGENT, id: "a", output: "", is_error: false });
    const run = builder.build();
    const streamed = streamedCheck(executionBalanceRule, run);
    expect(streamed).toEqual(executionBalanceRule.check(run));
    expect(types(streamed as EvaluatorResult)).toEqual(["execution-before-read"]);
  });
});
