import { fixtureRun } from "@evals/test-kit/claude-fixtures";
import { describe, expect, it } from "vitest";
import {
  diagnoseTrajectory,
  expectedTrajectory,
  fuzzyMatchers,
  runToMessages,
  type TrajectoryCall,
  trajectoryMatch,
  trajectoryOf,
  trajectoryToMessages,
} from "../src/index.js";
import { script, types } from "./helpers.js";

const calls = (...items: (string | [string, Record<string, unknown>])[]): TrajectoryCall[] =>
  items.map((item) =>
    typeof item === "string" ? { name: item, args: {} } : { name: item[0], args: item[1] },
  );

describe("the Run -> agentevals adapter", () => {
  it("turns a real run's tool calls into one assistant message per call", () => {
    const trajectory = trajectoryOf(fixtureRun("multi-tool"));
    expect(trajectory.map((call) => call.name)).toEqual(["Bash", "Read", "Bash", "Read", "Write"]);
    expect(trajectory[1]).toMatchObject({
      args: { file_path: "/home/dev/project/a.txt" },
      id: "toolu_fake0005",
      agent: "main",
    });
    const messages = trajectoryToMessages(trajectory);
    expect(messages).toHaveLength(5);
    expect(messages[0]).toEqual({
      role: "assistant",
      content: "",
      tool_calls: [
        {
          id: "toolu_fake0002",
          type: "function",
          function: { name: "Bash", arguments: '{"command":"ls","description":"List files"}' },
        },
      ],
    });
  });

  it("selects an agent's calls, and renders the whole conversation", () => {
    const run = fixtureRun("subagent");
    expect(trajectoryOf(run).map((call) => [call.name, call.agent])).toEqual([
      ["Agent", "main"],
      ["Bash", "a03261a2b1bf87fc6"],
    ]);
    expect(trajectoryOf(run, { agent: "main" }).map((call) => call.name)).toEqual(["Agent"]);
    expect(trajectoryOf(run, { agent: "general-purpose" }).map((call) => call.name)).toEqual(["Bash"]);
    const conversation = runToMessages(fixtureRun("multi-tool"));
    expect(conversation.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
    ]);
    expect(conversation[1]).toMatchObject({
      content: "Step 1: list.",
      tool_calls: [{ function: { name: "Bash" } }],
    });
  });
});

describe("diagnostics", () => {
  const base = { argsMode: "superset" as const };

  it("superset: names the missing call and the argument that differed", () => {
    const actual = calls(["Read", { file_path: "a.ts" }], ["Bash", { command: "npm test" }]);
    const expected = calls(["Read", { file_path: "b.ts" }], ["Grep", { pattern: "x" }], "Bash");
    const diagnosis = diagnoseTrajectory(actual, expected, { ...base, mode: "superset" });
    expect(diagnosis.passed).toBe(false);
    expect(diagnosis.issues.map((issue) => issue.type)).toEqual(["argument-mismatch", "missing-call"]);
    expect(diagnosis.issues[0]?.differences).toEqual([
      { key: "file_path", expected: "b.ts", actual: "a.ts" },
    ]);
    expect(diagnosis.issues[0]?.message).toBe(
      'expected call #1 Read: arguments differ from call #1: file_path: expected "b.ts", got "a.ts"',
    );
    expect(diagnosis.issues[1]?.message).toBe('expected call #2 Grep {"pattern":"x"} was never made');
    expect(diagnosis.score).toBeCloseTo(1 / 3);
  });

  it("subset: names the extra call", () => {
    const diagnosis = diagnoseTrajectory(calls("Read", "Bash", "Write"), calls("Read", "Write"), {
      ...base,
      mode: "subset",
    });
    expect(diagnosis.issues.map((issue) => [issue.type, issue.actualPosition])).toEqual([["extra-call", 1]]);
  });

  it("unordered: missing and extra calls, order ignored", () => {
    expect(
      diagnoseTrajectory(calls("Write", "Read"), calls("Read", "Write"), { ...base, mode: "unordered" })
        .passed,
    ).toBe(true);
    const diagnosis = diagnoseTrajectory(calls("Read", "Bash"), calls("Read", "Write"), {
      ...base,
      mode: "unordered",
    });
    expect(diagnosis.issues.map((issue) => issue.type)).toEqual(["missing-call", "extra-call"]);
  });

  it("strict: an inserted call is extra, a dropped one missing, a swap out of order", () => {
    const strict = { ...base, mode: "strict" as const };
    const inserted = diagnoseTrajectory(calls("Read", "Bash", "Edit"), calls("Read", "Edit"), strict);
    expect(inserted.issues.map((issue) => [issue.type, issue.actualPosition])).toEqual([["extra-call", 1]]);
    const dropped = diagnoseTrajectory(calls("Read", "Edit"), calls("Read", "Grep", "Edit"), strict);
    expect(dropped.issues.map((issue) => [issue.type, issue.expectedPosition])).toEqual([
      ["missing-call", 1],
    ]);
    const swapped = diagnoseTrajectory(calls("Edit", "Read"), calls("Read", "Edit"), strict);
    expect(swapped.issues.map((issue) => issue.type)).toEqual(["out-of-order"]);
    expect(swapped.issues[0]?.message).toBe("expected call #2 Edit was made out of order, as call #1");
    const replaced = diagnoseTrajectory(calls("Read", "Bash"), calls("Read", "Glob"), strict);
    expect(replaced.issues.map((issue) => issue.type)).toEqual(["unexpected-call"]);
    const differing = diagnoseTrajectory(
      calls(["Read", { file_path: "x" }]),
      calls(["Read", { file_path: "y" }]),
      strict,
    );
    expect(differing.issues.map((issue) => issue.type)).toEqual(["argument-mismatch"]);
    expect(diagnoseTrajectory(calls("Read", "Edit"), calls("Read", "Edit"), strict).issues).toEqual([]);
  });

  it("ordered: expected calls in order, anything in between", () => {
    const ordered = { ...base, mode: "ordered" as const };
    expect(
      diagnoseTrajectory(calls("Skill", "Read", "Bash", "Bash"), calls("Skill", "Bash"), ordered).passed,
    ).toBe(true);
    const wrong = diagnoseTrajectory(calls("Bash", "Skill"), calls("Skill", "Bash"), ordered);
    expect(wrong.issues.map((issue) => issue.type)).toEqual(["out-of-order"]);
    expect(wrong.issues[0]?.actualPosition).toBe(0);
  });

  it("keeps a long diagnosis readable", () => {
    const many = Array.from({ length: 120 }, (_, i) => ({ name: "Bash", args: { command: `echo ${i}` } }));
    const diagnosis = diagnoseTrajectory(many, [], { ...base, mode: "subset" });
    expect(diagnosis.issues).toHaveLength(51);
    expect(diagnosis.issues[50]?.message).toBe("... and 70 more differences");
  });
});

describe("fuzzy matchers for Claude Code's tools", () => {
  const match = (actual: TrajectoryCall[], expected: TrajectoryCall[], fuzzy: boolean, cwd = "/repo") =>
    diagnoseTrajectory(actual, expected, {
      mode: "superset",
      argsMode: "superset",
      overrides: fuzzy ? fuzzyMatchers({ cwd, argsMode: "superset" }) : undefined,
    }).passed;

  it("Grep patterns by case-insensitive containment", () => {
    const actual = calls(["Grep", { pattern: "TODO|FIXME", path: "/repo/src" }]);
    expect(match(actual, calls(["Grep", { pattern: "todo" }]), true)).toBe(true);
    expect(match(actual, calls(["Grep", { pattern: "todo", path: "src" }]), true)).toBe(true);
    expect(match(actual, calls(["Grep", { pattern: "todo" }]), false)).toBe(false);
    expect(match(actual, calls(["Grep", { pattern: "HACK" }]), true)).toBe(false);
  });

  it("Glob patterns wildcard-aware", () => {
    expect(
      match(calls(["Glob", { pattern: "src/*.ts" }]), calls(["Glob", { pattern: "src/**/*.ts" }]), true),
    ).toBe(true);
    expect(
      match(calls(["Glob", { pattern: "./**/*.md" }]), calls(["Glob", { pattern: "**/*.md" }]), true),
    ).toBe(true);
    expect(
      match(calls(["Glob", { pattern: "src/*.ts" }]), calls(["Glob", { pattern: "lib/*.ts" }]), true),
    ).toBe(false);
  });

  it("file paths against the run's cwd, absolute or relative, or by glob", () => {
    const actual = calls(["Read", { file_path: "/repo/src/index.ts" }]);
    expect(match(actual, calls(["Read", { file_path: "src/index.ts" }]), true)).toBe(true);
    expect(match(actual, calls(["Read", { file_path: "./src/../src/index.ts" }]), true)).toBe(true);
    expect(match(actual, calls(["Read", { file_path: "src/*.ts" }]), true)).toBe(true);
    expect(match(actual, calls(["Read", { file_path: "index.ts" }]), true)).toBe(false);
    expect(match(actual, calls(["Read", { file_path: "src/index.ts" }]), false)).toBe(false);
    // Without a cwd, a relative path matches an absolute one that ends with it.
    expect(
      match(actual, calls(["Read", { file_path: "src/index.ts" }]), true, undefined as unknown as string),
    ).toBe(true);
  });

  it("Bash commands by words or by pattern", () => {
    const actual = calls(["Bash", { command: "cd /repo && npm test -- --run", description: "Run tests" }]);
    expect(match(actual, calls(["Bash", { command: "npm test" }]), true)).toBe(true);
    expect(match(actual, calls(["Bash", { command: "/npm (run )?test/" }]), true)).toBe(true);
    expect(match(actual, calls(["Bash", { command: "npm run build" }]), true)).toBe(false);
  });
});

describe("trajectoryMatch", () => {
  it("passes the real multi-tool run against its trajectory with the recommended preset", async () => {
    const result = await trajectoryMatch(fixtureRun("multi-tool"), {
      expected: [
        { tool: "Bash", args: { command: "ls" } },
        { tool: "Read", args: { file_path: "a.txt" } },
      ],
    });
    expect(result.passed).toBe(true);
    expect(result.score).toBe(1);
    expect(result.metadata).toMatchObject({
      mode: "superset",
      argsMode: "superset",
      fuzzy: true,
      engine: "agentevals",
      // The hook-blocked Bash and the denied Write were attempted, not executed.
      actualCalls: 3,
      deniedCalls: 2,
    });
  });

  it("compares parallel calls (one model message) as agentevals does in strict mode (real run)", async () => {
    // The rules run made `grep` and `find` in one model message, then delegated; its Write was denied.
    const run = fixtureRun("rules");
    const grep = { tool: "Bash", args: { command: "grep -rn TODO ." } };
    const find = { tool: "Bash", args: { command: 'find . -name "*.txt"' } };
    const flat = await trajectoryMatch(run, { mode: "strict", expected: [grep, find, "Agent", "Read"] });
    expect(flat.passed).toBe(false);
    expect(flat.score).toBeLessThan(1);
    expect(types(flat)).toEqual(["parallel-mismatch"]);
    expect(flat.violations[0]?.message).toMatch(
      /^calls #1-#2 were made together in one model message, but expected alone/,
    );
    for (const group of [
      [grep, find],
      [find, grep],
    ]) {
      const grouped = await trajectoryMatch(run, { mode: "strict", expected: [group, "Agent", "Read"] });
      expect(grouped.passed).toBe(true);
      const builtin = await trajectoryMatch(run, {
        mode: "strict",
        engine: "builtin",
        expected: [group, "Agent", "Read"],
      });
      expect(builtin.passed).toBe(true);
    }
    // Other modes do not look at model messages.
    expect(
      (await trajectoryMatch(run, { mode: "ordered", expected: [grep, find, "Agent", "Read"] })).passed,
    ).toBe(true);
  });

  it("treats Task and Agent as one tool, keeping the name the run saw", async () => {
    // The rules run's stream says Agent while its init line offers Task.
    const run = fixtureRun("rules");
    expect(run.tools).toContain("Task");
    const result = await trajectoryMatch(run, {
      expected: [{ tool: "Task", args: { subagent_type: "general-purpose" } }],
      toolOverrides: { Task: ["subagent_type"] },
    });
    expect(result.passed).toBe(true);
    expect(result.evidence[0]?.description).toBe("expected call #1 Task matched call #3 (Agent)");
    const wrong = await trajectoryMatch(run, {
      expected: [{ tool: "Task", args: { subagent_type: "Explore" } }],
      toolOverrides: { Task: ["subagent_type"] },
    });
    expect(wrong.passed).toBe(false);
    expect(types(wrong)).toEqual(["argument-mismatch"]);
  });

  it("names the expected call that took the actual call when two compete for it (real run)", async () => {
    // One Read was made (by the subagent); both expected Reads fit it, the first takes it.
    const result = await trajectoryMatch(fixtureRun("rules"), {
      expected: ["Read", { tool: "Read", args: { file_path: "a.txt" } }],
    });
    expect(result.passed).toBe(false);
    expect(result.violations.map((item) => item.message)).toEqual([
      expect.stringMatching(
        /^expected call #2 Read \{"file_path":"a.txt"\} was not matched: call #4 \(toolu_vcr_0004, agent \w+\) Read .* fits it, but matched expected call #1 Read; one call cannot match both$/,
      ),
    ]);
  });

  it("does not count a denied Write as made: below 1.0, and the failure says denied (real run)", async () => {
    const expected = [{ tool: "Bash", args: { command: "ls" } }, "Write"];
    for (const from of ["stream", "hooks"] as const) {
      const result = await trajectoryMatch(fixtureRun("multi-tool", from), { expected });
      expect(result.passed, from).toBe(false);
      expect(result.score, from).toBeLessThan(1);
      expect(types(result), from).toEqual(["denied-call"]);
      expect(result.violations[0]?.message, from).toMatch(
        /expected call #2 Write was attempted but denied: toolu_fake0014 Write .*never ran/,
      );
      expect(result.violations[0]?.pointer, from).toMatchObject({ tool_use_id: "toolu_fake0014" });
      for (const mode of ["strict", "unordered", "ordered"] as const) {
        const other = await trajectoryMatch(fixtureRun("multi-tool", from), { mode, expected });
        expect(other.passed, `${from} ${mode}`).toBe(false);
        expect(other.violations.map((item) => item.message).join("\n"), `${from} ${mode}`).toMatch(/denied/);
      }
    }
    // Asked to count attempts, the denied Write is a Write.
    const attempts = await trajectoryMatch(fixtureRun("multi-tool"), { expected, includeDenied: true });
    expect(attempts.passed).toBe(true);
  });

  it("explains a failure with pointers into the run", async () => {
    const result = await trajectoryMatch(fixtureRun("multi-tool"), {
      mode: "strict",
      expected: ["Bash", { tool: "Read", args: { file_path: "b.txt" } }, "Write"],
    });
    expect(result.passed).toBe(false);
    // The hook-blocked Bash and the denied Write never ran: they are not in the actual trajectory.
    expect(types(result)).toEqual(["argument-mismatch", "unexpected-call"]);
    expect(result.violations[1]?.message).toMatch(
      /expected Write \(attempted but denied: toolu_fake0014 never ran\)/,
    );
    expect(result.violations[0]).toMatchObject({
      rule: "trajectory",
      severity: "error",
      pointer: { tool_use_id: "toolu_fake0005", event_index: 4, agent: "main" },
      evidence: {
        expected_position: 2,
        differences: [{ key: "file_path", expected: "b.txt", actual: "/home/dev/project/a.txt" }],
      },
    });
  });

  it("matches a subagent's calls and honours toolOverrides over the fuzzy preset", async () => {
    const run = fixtureRun("subagent");
    const child = await trajectoryMatch(run, {
      agent: "general-purpose",
      mode: "strict",
      expected: [{ tool: "Bash", args: { command: "echo" } }],
    });
    expect(child.passed).toBe(true);
    const exactBash = await trajectoryMatch(run, {
      agent: "general-purpose",
      mode: "strict",
      toolOverrides: { Bash: ["command"] },
      expected: [{ tool: "Bash", args: { command: "echo" } }],
    });
    expect(exactBash.passed).toBe(false);
    expect(types(exactBash)).toEqual(["argument-mismatch"]);
  });

  it("gives the same verdicts with the builtin engine, and supports ordered (builtin only)", async () => {
    const run = script()
      .call("Skill", { skill: "gemini-offloader" })
      .call("Read", { file_path: "/repo/SKILL.md" })
      .call("Bash", { command: "node scripts/query.js --prompt 'x'" })
      .build();
    for (const mode of ["strict", "unordered", "subset", "superset"] as const) {
      const expected = ["Skill", { tool: "Bash", args: { command: "query.js --prompt" } }];
      const viaAgentevals = await trajectoryMatch(run, { mode, expected });
      const builtin = await trajectoryMatch(run, { mode, expected, engine: "builtin" });
      expect(builtin.passed, mode).toBe(viaAgentevals.passed);
    }
    const ordered = await trajectoryMatch(run, { mode: "ordered", expected: ["Skill", "Bash"] });
    expect(ordered.passed).toBe(true);
    expect(ordered.metadata.engine).toBe("builtin");
    const reversed = await trajectoryMatch(run, { mode: "ordered", expected: ["Bash", "Skill"] });
    expect(types(reversed)).toEqual(["out-of-order"]);
  });

  it("reads expected calls written as names or { tool, args }", () => {
    expect(expectedTrajectory(["Read", { tool: "Bash", args: { command: "ls" } }])).toEqual([
      { name: "Read", args: {} },
      { name: "Bash", args: { command: "ls" } },
    ]);
  });
});
