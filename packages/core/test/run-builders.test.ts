import { describe, expect, it } from "vitest";
import {
  finalResponse,
  finalResult,
  isDelegationTool,
  listToolCalls,
  parseHookInput,
  RunSchema,
  runFromHookEvents,
  runFromStreamJson,
  sameTool,
  toolSequence,
} from "../src/index.js";
import { fixtureHookInputs, fixtureStream } from "./fixtures.js";

describe("runFromStreamJson on real runs", () => {
  it("builds the multi-tool run: calls, results, the denial and the final result", () => {
    const run = runFromStreamJson(fixtureStream("multi-tool"), { prompts: ["do the steps"] });
    expect(RunSchema.parse(run)).toEqual(run);
    expect(run.claude_version).toBe("2.1.330");
    expect(run.cwd).toBe("/home/dev/project");
    expect(toolSequence(run)).toEqual(["Bash", "Read", "Bash", "Read", "Write"]);
    const calls = listToolCalls(run);
    // The hook-blocked Bash is in the result's permission_denials: attempted, never run.
    expect(calls.map((call) => call.status)).toEqual(["ok", "ok", "denied", "error", "denied"]);
    expect(calls[2]?.result?.error).toContain("BLOCKME");
    expect(calls[4]?.input).toMatchObject({ file_path: "/home/dev/project/out.txt" });
    expect(run.events[0]).toMatchObject({ type: "user_message", text: "do the steps" });
    const result = finalResult(run);
    expect(result).toMatchObject({ subtype: "success", is_error: false });
    expect(result?.permission_denials?.map((denial) => denial.tool_name)).toEqual(["Bash", "Write"]);
    expect(finalResponse(run)).toBe("All steps done.");
  });

  it("leaves out a result line's field of another type than a Run's, as if it were absent", () => {
    // A stream-json writer other than Claude Code's (or an edited file) may write null or a string:
    // kept, a rule read `total_cost_usd.toFixed` and `result.trim` of them and evals grade crashed.
    const lines = (fixtureStream("multi-tool") as Record<string, unknown>[]).map((line) =>
      line.type === "result"
        ? {
            ...line,
            total_cost_usd: null,
            num_turns: "6",
            duration_ms: "12",
            result: 5,
            session_id: 1,
            stop_reason: 7,
            permission_denials: [null, { tool_name: 5 }, ...(line.permission_denials as unknown[])],
          }
        : line,
    );
    const run = runFromStreamJson(lines, { prompts: ["do the steps"] });
    expect(RunSchema.parse(run)).toEqual(run);
    const final = finalResult(run);
    expect(final).toMatchObject({ subtype: "success", is_error: false });
    for (const field of ["total_cost_usd", "num_turns", "duration_ms", "result", "session_id", "stop_reason"])
      expect(final).not.toHaveProperty(field);
    const kept = finalResult(runFromStreamJson(fixtureStream("multi-tool"), { prompts: ["do the steps"] }));
    // Of the denials, those a Run can hold (an object naming the tool).
    expect(final?.permission_denials).toEqual(kept?.permission_denials);
    expect(kept?.permission_denials).toHaveLength(2);
    expect(kept).toMatchObject({
      total_cost_usd: expect.any(Number),
      result: "All steps done.",
      stop_reason: "end_turn",
    });
  });

  it("attributes the subagent's calls to its agent id and links it to the Agent call", () => {
    const run = runFromStreamJson(fixtureStream("subagent"));
    const calls = listToolCalls(run);
    expect(calls.map((call) => [call.name, call.agent])).toEqual([
      ["Agent", "main"],
      ["Bash", "a03261a2b1bf87fc6"],
    ]);
    expect(run.agents).toContainEqual({
      id: "a03261a2b1bf87fc6",
      type: "general-purpose",
      parent: "main",
      parent_tool_use_id: "toolu_fake0002",
    });
    const start = run.events.find((event) => event.type === "subagent_start");
    expect(start).toMatchObject({ agent: "main", prompt: expect.stringContaining("SUBTASK-MARKER") });
    expect(run.events.some((event) => event.type === "subagent_stop")).toBe(true);
    expect(toolSequence(run, { agent: "main" })).toEqual(["Agent"]);
  });
});

describe("what the Run keeps of the rules run (real CLI: parallel calls, CLAUDE.md, no Grep/Glob)", () => {
  it("keeps the offered tools of the init line and the model message id of each call", () => {
    const run = runFromStreamJson(fixtureStream("rules"));
    expect(run.tools).toContain("Task");
    expect(run.tools).toContain("Bash");
    expect(run.tools).not.toContain("Grep");
    expect(run.tools).not.toContain("Glob");
    const calls = run.events.filter((event) => event.type === "tool_call");
    expect(calls.map((call) => [call.name, call.message_id])).toEqual([
      ["Bash", "msg_vcr_0001"],
      ["Bash", "msg_vcr_0001"],
      ["Agent", "msg_vcr_0002"],
      ["Read", "msg_vcr_0003"],
      ["Write", "msg_vcr_0005"],
    ]);
    expect(RunSchema.parse(run)).toEqual(run);
  });

  it("keeps the instruction files the CLI loaded itself (InstructionsLoaded)", () => {
    const run = runFromHookEvents(fixtureHookInputs("rules").map(parseHookInput));
    expect(run.instructions).toEqual([
      { file_path: "/home/dev/project/CLAUDE.md", memory_type: "Project", load_reason: "session_start" },
    ]);
    expect(RunSchema.parse(run)).toEqual(run);
  });
});

describe("runFromHookEvents on real runs", () => {
  it("builds the same tool trajectory as the stream, without double-counting PostToolBatch", () => {
    const hooks = runFromHookEvents(fixtureHookInputs("multi-tool").map(parseHookInput));
    const stream = runFromStreamJson(fixtureStream("multi-tool"));
    expect(toolSequence(hooks)).toEqual(toolSequence(stream));
    expect(listToolCalls(hooks).map((call) => call.id)).toEqual(listToolCalls(stream).map((call) => call.id));
    const calls = listToolCalls(hooks);
    // The hook-blocked Bash and the denied Write never got a PostToolUse: inferred denied, as the
    // stream says.
    expect(calls.map((call) => call.status)).toEqual(listToolCalls(stream).map((call) => call.status));
    expect(calls.map((call) => call.status)).toEqual(["ok", "ok", "denied", "error", "denied"]);
    expect(calls[4]?.permissionRequested).toBe(true);
    expect(
      hooks.notes.filter((note) => /inferred denied/.test(note.message)).map((note) => note.tool_use_id),
    ).toEqual(["toolu_fake0014", "toolu_fake0008"]);
    // A call that ran but whose PostToolUse was dropped (a known hook quirk) is not taken for denied.
    const dropped = fixtureHookInputs("multi-tool")
      .map(parseHookInput)
      .filter(
        (input) => !(input.hook_event_name === "PostToolUse" && input.tool_use_id === "toolu_fake0002"),
      );
    expect(listToolCalls(runFromHookEvents(dropped))[0]?.status).toBe("incomplete");
    // Without inference they are only incomplete.
    const raw = runFromHookEvents(fixtureHookInputs("multi-tool").map(parseHookInput), {
      inferDenials: false,
    });
    expect(listToolCalls(raw).map((call) => call.status)).toEqual([
      "ok",
      "ok",
      "incomplete",
      "error",
      "incomplete",
    ]);
    expect(calls[0]?.result?.duration_ms).toBeTypeOf("number");
    expect(
      hooks.events.filter((event) => event.type === "assistant_text").map((event) => event.text),
    ).toEqual(["Step 1: list.", "All steps done."]);
  });

  it("places the subagent under the Agent call that started it", () => {
    const run = runFromHookEvents(fixtureHookInputs("subagent").map(parseHookInput));
    expect(listToolCalls(run).map((call) => [call.name, call.agent])).toEqual([
      ["Agent", "main"],
      ["Bash", "a03261a2b1bf87fc6"],
    ]);
    expect(run.agents.find((agent) => agent.id === "a03261a2b1bf87fc6")).toMatchObject({
      type: "general-purpose",
      parent_tool_use_id: "toolu_fake0002",
    });
  });

  it("back-fills a missing tool_use_id on PostToolUse from the pending call and notes it", () => {
    const base = { session_id: "s", cwd: "/p" };
    const run = runFromHookEvents([
      parseHookInput({
        ...base,
        hook_event_name: "PreToolUse",
        tool_name: "Read",
        tool_input: { file_path: "a" },
        tool_use_id: "t1",
      }),
      parseHookInput({
        ...base,
        hook_event_name: "PostToolUse",
        tool_name: "Read",
        tool_input: { file_path: "a" },
        tool_response: "x",
      }),
    ]);
    expect(listToolCalls(run)[0]?.status).toBe("ok");
    expect(run.notes).toContainEqual(expect.objectContaining({ kind: "id_backfilled", tool_use_id: "t1" }));
  });
});

describe("a delegation through the Task name (real task-alias run)", () => {
  it("keeps the name each source saw (Task in the stream, Agent in the hooks) and links the subagent to it", () => {
    const stream = runFromStreamJson(fixtureStream("task-alias"), { prompts: ["delegate the reading"] });
    const hooks = runFromHookEvents(fixtureHookInputs("task-alias").map(parseHookInput));
    for (const [run, name] of [
      [stream, "Task"],
      [hooks, "Agent"],
    ] as const) {
      expect(RunSchema.parse(run)).toEqual(run);
      const calls = listToolCalls(run);
      expect(calls.map((call) => [call.name, call.id, call.status])).toEqual([
        [name, "toolu_vcr_0001", "ok"],
        ["Read", "toolu_vcr_0002", "ok"],
        ["Bash", "toolu_vcr_0003", "ok"],
      ]);
      const child = run.agents.find((agent) => agent.id !== "main");
      expect(child).toMatchObject({
        type: "general-purpose",
        parent: "main",
        parent_tool_use_id: "toolu_vcr_0001",
      });
      expect(calls.slice(1).every((call) => call.agent === child?.id)).toBe(true);
      expect(sameTool(calls[0]?.name ?? "", "Agent")).toBe(true);
      expect(isDelegationTool(calls[0]?.name ?? "")).toBe(true);
    }
  });
});
