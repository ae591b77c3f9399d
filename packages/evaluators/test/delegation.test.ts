import type { EvaluatorResult } from "@evals/core";
import { fixtureRun } from "@evals/test-kit/claude-fixtures";
import { describe, expect, it } from "vitest";
import { delegation } from "../src/index.js";
import { delegationRule } from "../src/rules/delegation.js";
import { script, streamedCheck, types } from "./helpers.js";

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

describe("delegation while the run is read", () => {
  it("reports each delegation with its subagent's calls, known only at the end", () => {
    const run = script()
      .call("Task", { subagent_type: "Explore", prompt: "look" }, { error: "agent crashed" })
      .subagent("general-purpose", (s) =>
        s.call("Read", { file_path: "a.ts" }).call("Edit", { file_path: "a.ts" }),
      )
      .call("Edit", { file_path: "b.ts" })
      .build();
    const streamed = streamedCheck(delegationRule, run);
    expect(streamed).toEqual(delegationRule.check(run));
    expect(types(streamed as EvaluatorResult)).toEqual(["delegation-failed"]);
    expect(streamed?.evidence.map((item) => item.data)).toEqual([
      { subagent: undefined, type: "Explore", toolCalls: undefined, status: "error" },
      { subagent: "agent_general-purpose_2", type: "general-purpose", toolCalls: 2, status: "ok" },
    ]);
    expect(streamed?.metadata).toMatchObject({
      delegations: 2,
      mainWorkCalls: 1,
      delegatedBeforeThreshold: true,
    });
  });

  it("flags undelegated work before the delegations that failed, as on the whole run", () => {
    const busy = script().call("Task", { subagent_type: "Explore", prompt: "look" }, { denied: true });
    for (let i = 0; i < 6; i++) busy.call("Edit", { file_path: `f${i}.ts` });
    const run = busy.call("Agent", { subagent_type: "Plan" }, { denied: true }).build();
    for (const options of [{}, { maxToolCalls: 2, maxFiles: 100 }]) {
      const streamed = streamedCheck(delegationRule, run, options);
      expect(streamed).toEqual(delegationRule.check(run, options));
      expect(types(streamed as EvaluatorResult)).toEqual([
        "should-delegate",
        "delegation-failed",
        "delegation-failed",
      ]);
    }
  });
});
