import { fixtureRun } from "@evals/test-kit/claude-fixtures";
import { describe, expect, it } from "vitest";
import { delegation } from "../src/index.js";
import { script, types } from "./helpers.js";

describe("delegation", () => {
  it("reports the real subagent run's delegation with the subagent's type and calls", () => {
    const result = delegation(fixtureRun("subagent"));
    expect(result.violations).toEqual([]);
    expect(result.evidence).toHaveLength(1);
    expect(result.evidence[0]?.data).toMatchObject({
      subagent: "a03261a2b1bf87fc6",
      type: "general-purpose",
      toolCalls: 1,
      status: "ok",
    });
    expect(result.metadata).toMatchObject({ delegations: 1, mainWorkCalls: 0 });
  });

  it("flags a main agent that does large work itself", () => {
    const busy = script();
    for (let i = 0; i < 6; i++)
      busy.call("Read", { file_path: `f${i}.ts` }).call("Edit", { file_path: `f${i}.ts` });
    const run = busy.build();
    const result = delegation(run);
    expect(types(result)).toEqual(["should-delegate"]);
    // The sixth distinct file written crosses maxFiles (5).
    expect(result.violations[0]?.pointer?.tool_use_id).toBe("toolu_12");
    expect(result.violations[0]?.severity).toBe("warning");
    expect(result.score).toBe(0);
    expect(delegation(run, { maxFiles: 10 }).violations).toEqual([]);
    expect(types(delegation(run, { maxToolCalls: 3, maxFiles: 100 }))).toEqual(["should-delegate"]);
    expect(delegation(run, { maxToolCalls: 3, severity: "error" }).passed).toBe(false);
  });

  it("is content when the work was delegated, and flags a delegation that failed", () => {
    const delegated = script()
      .subagent("general-purpose", (s) => {
        for (let i = 0; i < 30; i++) s.call("Edit", { file_path: `f${i}.ts` });
      })
      .build();
    expect(delegation(delegated).violations).toEqual([]);
    const failed = script()
      .call("Task", { subagent_type: "Explore", prompt: "look" }, { error: "agent crashed" })
      .build();
    expect(types(delegation(failed))).toEqual(["delegation-failed"]);
    expect(delegation(failed).violations[0]?.message).toContain("agent crashed");
    // A denied delegation delegated nothing.
    const busy = script().call("Task", { subagent_type: "Explore", prompt: "look" }, { denied: true });
    for (let i = 0; i < 6; i++) busy.call("Edit", { file_path: `f${i}.ts` });
    const denied = delegation(busy.build());
    expect(types(denied)).toEqual(["should-delegate", "delegation-failed"]);
    expect(denied.violations[1]?.message).toMatch(/was denied \(never ran\)/);
    expect(denied.metadata).toMatchObject({ delegations: 0 });
  });
});
