import { describe, expect, it } from "vitest";
import { executionBalance } from "../src/index.js";
import { fixtureRun, script, types } from "./helpers.js";

describe("execution-balance", () => {
  it("is satisfied by the real multi-tool run (reads before the denied Write)", () => {
    const result = executionBalance(fixtureRun("multi-tool"));
    expect(result.violations).toEqual([]);
    expect(result.metadata).toMatchObject({ reads: 4, executions: 1 });
  });

  it("warns when the real subagent run delegates before reading anything", () => {
    const result = executionBalance(fixtureRun("subagent"));
    expect(types(result)).toEqual(["execution-before-read"]);
    expect(result.violations[0]).toMatchObject({
      severity: "warning",
      pointer: { tool_use_id: "toolu_fake0002", agent: "main" },
    });
    expect(result.passed).toBe(true);
    expect(executionBalance(fixtureRun("subagent"), { severity: "error" }).passed).toBe(false);
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
});
