import { fixtureRun } from "@evals/test-kit/claude-fixtures";
import { describe, expect, it } from "vitest";
import {
  approvalGate,
  behavior,
  delegation,
  evaluate,
  executionBalance,
  parseCase,
  performanceMetrics,
  trajectoryMatch,
} from "../src/index.js";
import { types } from "./helpers.js";

/*
 * The real task-alias run: the model delegated through the `Task` name. Its stream says Task, its
 * hooks say Agent, for the same call (toolu_vcr_0001). Whichever source a run was built from, and
 * whichever name a case uses, every evaluator must see one tool.
 */
const sources = ["stream", "hooks"] as const;

describe("Task and Agent are one tool (real task-alias run: the stream says Task, the hooks Agent)", () => {
  it("each source keeps the name it saw", () => {
    expect(fixtureRun("task-alias", "stream").events).toContainEqual(
      expect.objectContaining({ type: "tool_call", name: "Task", id: "toolu_vcr_0001" }),
    );
    expect(fixtureRun("task-alias", "hooks").events).toContainEqual(
      expect.objectContaining({ type: "tool_call", name: "Agent", id: "toolu_vcr_0001" }),
    );
  });

  it.each(sources)(
    "trajectory matching (%s): either name matches, and the evidence names both",
    async (from) => {
      const run = fixtureRun("task-alias", from);
      const seen = from === "stream" ? "Task" : "Agent";
      for (const name of ["Agent", "Task"]) {
        const result = await trajectoryMatch(run, {
          mode: "strict",
          expected: [{ tool: name, args: { subagent_type: "general-purpose" } }, "Read", "Bash"],
          toolOverrides: { [name]: ["subagent_type"] },
        });
        expect(result.passed, name).toBe(true);
        expect(result.evidence[0]?.description, name).toBe(
          `expected call #1 ${name} matched call #1${name === seen ? "" : ` (${seen})`}`,
        );
      }
    },
  );

  it.each(sources)("delegation, behavior, approval-gate and execution-balance (%s)", (from) => {
    const run = fixtureRun("task-alias", from);
    const delegated = delegation(run);
    expect(delegated.violations).toEqual([]);
    expect(delegated.metadata).toMatchObject({ delegations: 1, mainWorkCalls: 0 });
    expect(delegated.evidence[0]?.data).toMatchObject({
      type: "general-purpose",
      toolCalls: 2,
      status: "ok",
    });
    for (const name of ["Agent", "Task"]) {
      expect(behavior(run, { mustUseTools: [name] }).passed, name).toBe(true);
      expect(types(behavior(run, { mustNotUseTools: [name] })), name).toEqual(["forbidden-tool"]);
      expect(
        approvalGate(run, { riskyTools: [name] }).violations.map((item) => item.pointer?.tool_use_id),
        name,
      ).toEqual(["toolu_vcr_0001"]);
    }
    // Delegating is not executing (the subagent read a.txt and ran a read-only echo).
    expect(executionBalance(run, { severity: "error" }).metadata).toMatchObject({ reads: 2, executions: 0 });
    expect(executionBalance(run, { severity: "error" }).violations).toEqual([]);
  });

  it("performance-metrics counts the delegation under one name, whichever source the run came from", () => {
    const [stream, hooks] = sources.map(
      (from) => performanceMetrics(fixtureRun("task-alias", from)).metadata as { byTool: object },
    );
    expect(Object.keys(stream?.byTool ?? {}).sort()).toEqual(["Agent", "Bash", "Read"]);
    expect(Object.keys(hooks?.byTool ?? {}).sort()).toEqual(["Agent", "Bash", "Read"]);
  });

  it.each(sources)("a case naming either tool passes the run (%s)", async (from) => {
    const evalCase = parseCase({
      id: "delegates",
      behavior: { mustUseTools: ["Task"], mustNotUseTools: ["Write"] },
      expectedTrajectory: { mode: "strict", calls: ["Agent", "Read", "Bash"] },
    });
    const evaluation = await evaluate(fixtureRun("task-alias", from), evalCase);
    expect(evaluation.verdicts.filter((verdict) => !verdict.passed)).toEqual([]);
    expect(evaluation.passed).toBe(true);
  });
});
