import { fixtureRun } from "@evals/test-kit/claude-fixtures";
import { describe, expect, it } from "vitest";
import { executionBalance } from "../src/index.js";
import { script, types } from "./helpers.js";

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
