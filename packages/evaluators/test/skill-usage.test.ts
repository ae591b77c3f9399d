import type { EvaluatorResult } from "@evals/core";
import { fixtureRun } from "@evals/test-kit/claude-fixtures";
import { describe, expect, it } from "vitest";
import { evaluate, parseCase, skillUsage } from "../src/index.js";
import { skillUsageRule } from "../src/rules/skill-usage.js";
import { script, streamedCheck, types } from "./helpers.js";
import { parallelCalls } from "./parallel-calls.js";

// The real runs with their init line are in @evals/harness's skills-and-tools.claude.test.ts; these are
// the cases a scripted model cannot easily show: plugin skill names, failed loads, hooks-only runs.
describe("skill-usage", () => {
  it("matches a plugin's namespaced skill by its short name, and a full name only itself", () => {
    const run = script()
      .prompt("ask gemini")
      .call("Skill", { skill: "gemini-offloader:gemini-offloader" })
      .build();
    expect(skillUsage(run, { mustUse: ["gemini-offloader"] }).violations).toEqual([]);
    expect(skillUsage(run, { mustUse: ["gemini-offloader:gemini-offloader"] }).violations).toEqual([]);
    expect(types(skillUsage(run, { mustUse: ["other:gemini-offloader"] }))).toEqual(["missing-skill"]);
    expect(types(skillUsage(run, { mustNotUse: ["gemini-offloader"] }))).toEqual(["forbidden-skill"]);
  });

  it("does not count a Skill call that failed as loaded, and quotes its error", () => {
    const run = {
      ...script()
        .prompt("draft")
        .call("Skill", { skill: "internal-comms" }, { error: "Unknown skill: internal-comms" })
        .build(),
      skills: ["todo-report"],
    };
    const result = skillUsage(run, { mustUse: ["internal-comms"] });
    expect(result.violations.map((item) => `${item.type}: ${item.message}`)).toEqual([
      "skill-load-failed: skill internal-comms was expected; its Skill call failed: Unknown skill: internal-comms (loaded: none; available: todo-report)",
    ]);
    expect(result.score).toBe(0);
    expect(result.passed).toBe(false);
  });

  it("says when the run does not list the available skills (a real hooks-only run)", () => {
    const run = fixtureRun("multi-tool", "hooks");
    expect(run.skills).toBeUndefined();
    expect(skillUsage(run, { mustUse: ["internal-comms"] }).violations[0]?.message).toBe(
      "skill internal-comms was expected but never loaded (loaded: none; available: unknown (the run does not list them))",
    );
    // From the same run's stream, the init line's skills are there.
    expect(fixtureRun("multi-tool").skills).toContain("code-review");
  });

  it("runs from a case's behavior.mustUseSkills and passes when nothing is asked", async () => {
    const run = script().prompt("draft").call("Skill", { skill: "internal-comms" }).final("done").build();
    const loads = parseCase({ id: "c", prompt: "draft", behavior: { mustUseSkills: ["internal-comms"] } });
    expect((await evaluate(run, loads)).passed).toBe(true);
    const forbids = parseCase({
      id: "c",
      prompt: "draft",
      behavior: { mustNotUseSkills: ["internal-comms"] },
    });
    const verdict = await evaluate(run, forbids);
    expect(verdict.passed).toBe(false);
    expect(verdict.verdicts.find((item) => item.evaluator === "skill-usage")?.violations[0]?.type).toBe(
      "forbidden-skill",
    );
    expect(skillUsage(run).passed).toBe(true);
  });

  it("refuses a case that names skills but turns skill-usage off", () => {
    expect(() =>
      parseCase({
        id: "c",
        prompt: "draft",
        behavior: { mustUseSkills: ["internal-comms"] },
        rules: { "skill-usage": false },
      }),
    ).toThrow(
      /rules\.skill-usage.*behavior names skills \(mustUseSkills\/mustNotUseSkills\) but rules\.skill-usage/s,
    );
  });
  it("skill-usage while the run is read: repeated, failed, denied and subagent loads, results out of order", () => {
    const scripted = {
      ...script("/repo")
        .prompt("draft")
        .call("Skill", { skill: "internal-comms" }, { error: "Unknown skill: internal-comms" })
        .call("Skill", { skill: "acme:todo-report" })
        .subagent("writer", (sub) =>
          sub.call("Skill", { skill: "deploy" }, { denied: true }).call("Skill", { skill: "acme:danger" }),
        )
        .call("Skill", { skill: "todo-report" })
        .call("Skill", { skill: "internal-comms" })
        .call("Skill", { skill: "acme:danger" })
        .build(),
      skills: ["acme:todo-report", "todo-report", "internal-comms", "acme:danger"],
    };
    const options = {
      mustUse: ["todo-report", "internal-comms", "deploy", "gone"],
      mustNotUse: ["danger", "deploy"],
    };
    const streamed = streamedCheck(skillUsageRule, scripted, options);
    expect(streamed).toEqual(skillUsageRule.check(scripted, options));
    expect(types(streamed as EvaluatorResult)).toEqual([
      "skill-load-failed",
      "skill-not-available",
      "forbidden-skill",
      "forbidden-skill",
    ]);
    expect(streamed?.evidence.map((item) => item.pointer?.tool_use_id)).toEqual(["toolu_2", "toolu_7"]);

    // Two Skill calls answered in the opposite order: the first one made still counts first.
    const parallel = parallelCalls(
      [
        ["a", "Skill", { skill: "x:report" }],
        ["b", "Skill", { skill: "y:report" }],
      ],
      ["b", "a"],
    );
    const streamedParallel = streamedCheck(skillUsageRule, parallel, { mustUse: ["report"] });
    expect(streamedParallel).toEqual(skillUsageRule.check(parallel, { mustUse: ["report"] }));
    expect(streamedParallel?.evidence[0]?.description).toBe("skill x:report loaded");
  });
});

describe("agent.tools", () => {
  it("takes canonical tool names, and maps OpenCode's ids onto them", () => {
    expect(parseCase({ id: "c", prompt: "p", agent: { tools: ["Read"] } }).agent.tools).toEqual(["Read"]);
    expect(parseCase({ id: "c", prompt: "p", agent: { tools: ["read", "bash"] } }).agent.tools).toEqual([
      "Read",
      "Bash",
    ]);
  });
});
