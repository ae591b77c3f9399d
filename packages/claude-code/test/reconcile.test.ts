import {
  finalResult,
  type HookInput,
  listToolCalls,
  type Run,
  RunSchema,
  runSummary,
  toolSequence,
} from "@evals/core";
import { STREAM_GAP_HOOK_EVENTS, STREAM_GAP_TOOL_MATCHER, TRANSCRIPT_HOOK_EVENTS } from "@evals/hooks";
import {
  type FixtureName,
  fixtureHookInputs,
  fixturePrompts,
  fixtureStream,
} from "@evals/test-kit/claude-fixtures";
import { describe, expect, it } from "vitest";
import { reconcileRun } from "../src/index.js";

type Line = Record<string, unknown>;

function reconcile(
  name: FixtureName,
  damage: { stream?: (lines: Line[]) => Line[]; hooks?: (events: HookInput[]) => HookInput[] } = {},
): Run {
  const streamLines = (damage.stream ?? ((lines) => lines))(fixtureStream(name));
  const hookEvents = (damage.hooks ?? ((events) => events))(fixtureHookInputs(name) as HookInput[]);
  const run = reconcileRun({ streamLines, hookEvents, prompts: fixturePrompts(name), runId: "r" });
  expect(() => RunSchema.parse(run)).not.toThrow();
  return run;
}

const kinds = (run: Run) => run.notes.map((note) => note.kind);
const hookOf = (name: string, toolUseId: string) => (event: HookInput) =>
  event.hook_event_name === name && (event as { tool_use_id?: string }).tool_use_id === toolUseId;
const withoutKey = <T extends object>(value: T, key: string): T => {
  const { [key]: _dropped, ...rest } = value as Record<string, unknown>;
  return rest as T;
};

describe("reconcileRun on the real multi-tool run", () => {
  it("joins both sources by tool_use_id and keeps the final result", () => {
    const run = reconcile("multi-tool");
    expect(run.sources).toEqual(["stream", "hooks"]);
    expect(toolSequence(run)).toEqual(["Bash", "Read", "Bash", "Read", "Write"]);
    // The hook-blocked Bash is in the result's permission_denials: attempted, never run.
    expect(listToolCalls(run).map((call) => call.status)).toEqual(["ok", "ok", "denied", "error", "denied"]);
    for (const event of run.events.filter((event) => event.type === "tool_call")) {
      expect(event.sources).toEqual(["stream", "hooks"]);
    }
    // Durations only the hooks know are added to the stream's results.
    const bashResult = run.events.find(
      (event) => event.type === "tool_result" && event.id === "toolu_fake0002",
    );
    expect(bashResult).toMatchObject({ sources: ["stream", "hooks"], output: "a.txt\nb.txt" });
    expect(bashResult && "duration_ms" in bashResult && typeof bashResult.duration_ms).toBe("number");
    expect(finalResult(run)).toMatchObject({ subtype: "success", is_error: false, num_turns: 6 });
    expect(finalResult(run)?.permission_denials?.map((denial) => denial.tool_use_id)).toContain(
      "toolu_fake0014",
    );
    expect(run.session_id).toBe("a3e834f3-3b74-4b22-8ceb-500603eb7434");
    // Results of tools that never ran (hook-blocked, permission-denied) are in the stream only, as expected.
    expect(run.notes).toEqual([]);
  });

  it("merges the hooks' permission request in, with the call's id, between the call and the denial", () => {
    const run = reconcile("multi-tool");
    const types = run.events
      .filter((event) => "id" in event && event.id === "toolu_fake0014")
      .map((event) => [event.type, event.sources]);
    expect(types).toEqual([
      ["tool_call", ["stream", "hooks"]],
      ["permission_request", ["hooks"]],
      ["permission_denied", ["stream"]],
      ["tool_result", ["stream"]],
    ]);
    expect(listToolCalls(run).find((call) => call.name === "Write")?.permissionRequested).toBe(true);
  });

  it("flags a tool call whose PreToolUse hook was dropped", () => {
    const run = reconcile("multi-tool", {
      hooks: (events) => events.filter((event) => !hookOf("PreToolUse", "toolu_fake0005")(event)),
    });
    expect(kinds(run)).toEqual(["only_in_stream"]);
    const [note] = run.notes;
    expect(note?.tool_use_id).toBe("toolu_fake0005");
    expect(run.events[note!.event_index!]).toMatchObject({
      type: "tool_call",
      name: "Read",
      sources: ["stream"],
    });
    expect(note?.message).toBe("tool call Read (toolu_fake0005, agent main) was seen in the stream only");
  });

  it("flags a successful result whose PostToolUse hook was dropped", () => {
    const run = reconcile("multi-tool", {
      hooks: (events) => events.filter((event) => !hookOf("PostToolUse", "toolu_fake0002")(event)),
    });
    expect(run.notes).toMatchObject([{ kind: "only_in_stream", tool_use_id: "toolu_fake0002" }]);
    expect(run.events[run.notes[0]!.event_index!]).toMatchObject({
      type: "tool_result",
      sources: ["stream"],
    });
  });

  it("back-fills tool_use_ids the hooks left out, from the stream", () => {
    const run = reconcile("multi-tool", {
      hooks: (events) =>
        events.map((event) =>
          hookOf("PreToolUse", "toolu_fake0002")(event) || hookOf("PostToolUse", "toolu_fake0002")(event)
            ? withoutKey(event, "tool_use_id")
            : event,
        ),
    });
    expect(run.notes.map((note) => [note.kind, note.message])).toEqual([
      ["other", "PreToolUse of Bash had no tool_use_id"],
      ["id_backfilled", "Bash hook events had no tool_use_id; took toolu_fake0002 from the stream"],
    ]);
    const bash = run.events.filter((event) => "id" in event && event.id === "toolu_fake0002");
    expect(bash.map((event) => [event.type, event.sources])).toEqual([
      ["tool_call", ["stream", "hooks"]],
      ["tool_result", ["stream", "hooks"]],
    ]);
    expect(run.events.some((event) => "id" in event && String(event.id).startsWith("missing:"))).toBe(false);
  });

  it("back-fills ids the stream left out, from the hooks", () => {
    const run = reconcile("multi-tool", {
      stream: (lines) =>
        lines.map((line) => {
          const message = line.message as { content?: Line[] } | undefined;
          if (!message?.content) return line;
          const content = message.content.map((block) =>
            block.id === "toolu_fake0005"
              ? withoutKey(block, "id")
              : block.tool_use_id === "toolu_fake0005"
                ? withoutKey(block, "tool_use_id")
                : block,
          );
          return { ...line, message: { ...message, content } };
        }),
    });
    expect(kinds(run)).toEqual(["id_backfilled", "id_backfilled"]);
    expect(run.notes.map((note) => note.message)).toEqual([
      "stream tool_use of Read had no id; took toolu_fake0005 from its PreToolUse hook",
      "stream tool_result had no tool_use_id; matched to the oldest open call toolu_fake0005",
    ]);
    expect(toolSequence(run)).toEqual(["Bash", "Read", "Bash", "Read", "Write"]);
    expect(listToolCalls(run)[1]).toMatchObject({ id: "toolu_fake0005", status: "ok" });
  });

  it("keeps and flags what only the hooks saw when the stream was cut short, in the hooks' order", () => {
    // The run was killed after the blocked Bash call: the stream ends there, the hooks go on.
    const run = reconcile("multi-tool", {
      stream: (lines) =>
        lines.slice(0, lines.findIndex((line) => JSON.stringify(line).includes("toolu_fake0008")) + 1),
    });
    expect(toolSequence(run)).toEqual(["Bash", "Read", "Bash", "Read", "Write"]);
    const hooksOnly = run.events.filter(
      (event) => event.sources?.length === 1 && event.sources[0] === "hooks",
    );
    expect(hooksOnly.map((event) => event.type)).toEqual([
      "tool_call",
      "tool_result",
      "tool_call",
      "permission_request",
      "assistant_text",
    ]);
    expect(run.notes.map((note) => [note.kind, note.tool_use_id])).toEqual([
      ["only_in_hooks", "toolu_fake0011"],
      ["only_in_hooks", "toolu_fake0011"],
      ["only_in_hooks", "toolu_fake0014"],
    ]);
    for (const note of run.notes) expect(run.events[note.event_index!]?.sources).toEqual(["hooks"]);
    expect(finalResult(run)).toBeUndefined();
  });
});

describe("reconcileRun on the real subagent run", () => {
  it("attributes the subagent's tool calls and joins its start and stop", () => {
    const run = reconcile("subagent");
    const child = "a03261a2b1bf87fc6";
    expect(run.agents).toEqual([
      { id: "main", type: "main" },
      { id: child, type: "general-purpose", parent: "main", parent_tool_use_id: "toolu_fake0002" },
    ]);
    expect(listToolCalls(run).map((call) => [call.agent, call.name, call.status])).toEqual([
      ["main", "Agent", "ok"],
      [child, "Bash", "ok"],
    ]);
    const start = run.events.find((event) => event.type === "subagent_start");
    expect(start).toMatchObject({
      agent: "main",
      agent_id: child,
      parent_tool_use_id: "toolu_fake0002",
      sources: ["stream", "hooks"],
    });
    const stop = run.events.find((event) => event.type === "subagent_stop");
    expect(stop).toMatchObject({ agent_id: child, sources: ["stream", "hooks"] });
    expect(stop && "last_message" in stop ? stop.last_message : "").toContain("child done");
    expect(run.notes).toEqual([]);
  });

  it("finds the subagent's real id through parent_tool_use_id when stream lines lack agent_id", () => {
    const run = reconcile("subagent", {
      stream: (lines) =>
        lines
          .filter((line) => line.subtype !== "task_started" && line.subtype !== "task_notification")
          .map((line) => withoutKey(line, "agent_id")),
    });
    const child = "a03261a2b1bf87fc6";
    expect(listToolCalls(run).map((call) => [call.agent, call.name])).toEqual([
      ["main", "Agent"],
      [child, "Bash"],
    ]);
    expect(run.agents.map((agent) => agent.id)).toEqual(["main", child]);
    expect(run.events.some((event) => event.agent.startsWith("task:"))).toBe(false);
    // The start and stop the stream no longer reported come from the hooks, flagged.
    expect(run.notes.map((note) => note.kind)).toEqual(["only_in_hooks", "only_in_hooks"]);
  });
});

describe("reconcileRun with one source", () => {
  it("is the stream run when no hook fired, and the hook run when the stream is empty", () => {
    const streamOnly = reconcileRun({
      streamLines: fixtureStream("multi-tool"),
      hookEvents: [],
      prompts: ["do the steps"],
    });
    expect(streamOnly.sources).toEqual(["stream"]);
    expect(toolSequence(streamOnly)).toEqual(["Bash", "Read", "Bash", "Read", "Write"]);
    const hooksOnly = reconcileRun({
      streamLines: [],
      hookEvents: fixtureHookInputs("multi-tool") as HookInput[],
    });
    expect(hooksOnly.sources).toEqual(["hooks"]);
    expect(toolSequence(hooksOnly)).toEqual(["Bash", "Read", "Bash", "Read", "Write"]);
    // Hooks alone: the denials are inferred, as evals grade infers them; the same statuses as the stream.
    expect(listToolCalls(hooksOnly).map((call) => call.status)).toEqual(
      listToolCalls(streamOnly).map((call) => call.status),
    );
    expect(listToolCalls(reconcile("multi-tool")).map((call) => call.status)).toEqual([
      "ok",
      "ok",
      "denied",
      "error",
      "denied",
    ]);
  });

  it("keeps the offered tools, the loaded CLAUDE.md and each call's model message (real rules run)", () => {
    const run = reconcile("rules");
    expect(run.tools).toContain("Task");
    expect(run.tools).not.toContain("Grep");
    expect(run.instructions).toEqual([
      { file_path: "/home/dev/project/CLAUDE.md", memory_type: "Project", load_reason: "session_start" },
    ]);
    const calls = run.events.filter((event) => event.type === "tool_call");
    expect(calls.map((call) => call.message_id)).toEqual([
      "msg_vcr_0001",
      "msg_vcr_0001",
      "msg_vcr_0002",
      "msg_vcr_0003",
      "msg_vcr_0005",
    ]);
    // One denial event for the Write, from the stream (the hooks' inference is not doubled).
    expect(run.events.filter((event) => event.type === "permission_denied")).toHaveLength(1);
    expect(listToolCalls(run).at(-1)).toMatchObject({ name: "Write", status: "denied" });
  });
});

describe("reconcileRun on the real background-subagent run", () => {
  it("keeps both result lines for the summary and the <task-notification> as the subagent's notification", () => {
    const run = reconcile("background-subagent");
    expect(runSummary(run)).toMatchObject({
      results: 2,
      turns: 3,
      tokens: { input: 24885 + 13002, output: 66 + 14 },
      cost_usd: 0.212956,
      final_text: "parent saw the child finish",
    });
    const child = run.agents.find((agent) => agent.id !== "main");
    expect(child).toMatchObject({ type: "general-purpose", parent: "main" });
    const messages = run.events.filter((event) => event.type === "user_message");
    expect(messages.filter((event) => event.agent === "main").map((event) => event.text)).toEqual([
      "background",
    ]);
    expect(messages.find((event) => event.text.startsWith("<task-notification>"))).toMatchObject({
      agent: child?.id,
      notification: true,
      sources: ["hooks"],
    });
  });
});

describe("reconcileRun on the real task-alias run (the stream says Task, the hooks Agent)", () => {
  it("joins the two names of one call, keeping the stream's, with the subagent under it", () => {
    const run = reconcile("task-alias");
    expect(listToolCalls(run).map((call) => [call.name, call.id, call.status])).toEqual([
      ["Task", "toolu_vcr_0001", "ok"],
      ["Read", "toolu_vcr_0002", "ok"],
      ["Bash", "toolu_vcr_0003", "ok"],
    ]);
    for (const event of run.events.filter((event) => event.type === "tool_call")) {
      expect(event.sources).toEqual(["stream", "hooks"]);
    }
    expect(run.agents.find((agent) => agent.id !== "main")).toMatchObject({
      type: "general-purpose",
      parent_tool_use_id: "toolu_vcr_0001",
    });
    // Neither source is said to have missed the call under the other name.
    expect(run.notes).toEqual([]);
  });
});

describe("reconcileRun with runAgent's capture (only what the stream lacks)", () => {
  /**
   * The hook events runAgent's capture registers would have fired in the fixture run, and those it
   * reads from the session transcript instead (the same hook inputs).
   */
  const streamGapOnly = (events: HookInput[]) =>
    events.filter((event) => {
      if ((TRANSCRIPT_HOOK_EVENTS as readonly string[]).includes(event.hook_event_name)) return true;
      if (!(STREAM_GAP_HOOK_EVENTS as readonly string[]).includes(event.hook_event_name)) return false;
      const matcher = STREAM_GAP_TOOL_MATCHER[event.hook_event_name];
      const tool = (event as { tool_name?: string }).tool_name;
      return !matcher || (tool !== undefined && matcher.split("|").includes(tool));
    });
  /** What the rules read: each event's type, agent, call, tool and status, in order. */
  const shape = (run: Run) =>
    run.events.map((event) => ({
      type: event.type,
      agent: event.agent,
      ...("id" in event ? { id: event.id } : {}),
      ...("name" in event ? { name: event.name } : {}),
      ...("agent_id" in event ? { agent_id: event.agent_id } : {}),
      ...("parent_tool_use_id" in event ? { parent: event.parent_tool_use_id } : {}),
      ...("last_message" in event ? { last_message: event.last_message } : {}),
      ...(event.type === "assistant_text" || event.type === "user_message"
        ? { text: event.text.trim() }
        : {}),
    }));

  it.for([
    "multi-tool",
    "subagent",
    "rules",
    "background-subagent",
    "api-error",
    "max-turns",
    "task-alias",
  ] as const)("builds the same run as with every hook event: %s", (name) => {
    const everything = reconcile(name);
    const streamLines = fixtureStream(name);
    const gap = reconcileRun({
      streamLines,
      hookEvents: streamGapOnly(fixtureHookInputs(name) as HookInput[]),
      hookCoverage: { events: STREAM_GAP_HOOK_EVENTS, toolMatcher: STREAM_GAP_TOOL_MATCHER },
      prompts: fixturePrompts(name),
      runId: "r",
    });
    expect(() => RunSchema.parse(gap)).not.toThrow();
    expect(shape(gap)).toEqual(shape(everything));
    expect(gap.agents).toEqual(everything.agents);
    expect(gap.instructions).toEqual(everything.instructions);
    expect(listToolCalls(gap).map((call) => call.status)).toEqual(
      listToolCalls(everything).map((call) => call.status),
    );
    // The hooks were not asked for the other calls: no note says they missed them.
    expect(kinds(gap)).toEqual(kinds(everything));
  });
});
