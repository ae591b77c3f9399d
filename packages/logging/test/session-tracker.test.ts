import { RunBuilder, type RunEvent } from "@evals/core";
import { describe, expect, it } from "vitest";
import { buildSessionTree, type SessionChange, SessionTracker } from "../src/index.js";
import { isoToMs } from "../src/session-tracker.js";
import { syntheticRun } from "./demo-results.js";
import { fixtureRun } from "./fixtures.js";

describe("SessionTracker on the real subagent run", () => {
  const run = fixtureRun("subagent");
  const tree = buildSessionTree(run);
  const child = tree.root.children[0]!;

  it("builds the hierarchy: main and its general-purpose subagent", () => {
    expect(tree.totalSessions).toBe(2);
    expect(tree.maxDepth).toBe(1);
    expect(tree.root).toMatchObject({ id: "main", type: "main", depth: 0, status: "finished" });
    expect(tree.root.children).toHaveLength(1);
    expect(child).toMatchObject({
      id: "a03261a2b1bf87fc6",
      type: "general-purpose",
      parent: "main",
      parentToolUseId: "toolu_fake0002",
      depth: 1,
      status: "finished",
      prompt: "SUBTASK-MARKER: please run echo from-child and report",
      description: "Run child echo",
      lastMessage: 'child done: "from-child"',
      firstEventIndex: 2,
      lastEventIndex: 6,
    });
    expect(tree.sessions.map((s) => s.id)).toEqual(["main", "a03261a2b1bf87fc6"]);
  });

  it("counts tool calls per agent: the child's Bash is not main's", () => {
    expect(tree.root.toolCalls).toBe(1);
    expect(tree.root.toolCallsByName).toEqual({ Agent: 1 });
    expect(child.toolCalls).toBe(1);
    expect(child.toolCallsByName).toEqual({ Bash: 1 });
    expect(tree.root.toolErrors + child.toolErrors).toBe(0);
  });

  it("times each session and puts the run's cost on main", () => {
    // main: the final result's duration; the child: from the delegating call (18.916) to its last event (19.294).
    expect(tree.root.durationMs).toBe(1052);
    expect(tree.root.costUsd).toBeCloseTo(0.171032, 6);
    expect(child.durationMs).toBe(378);
    expect(child.startedAt).toBe("2026-11-21T23:57:18.916Z");
    expect(child.endedAt).toBe("2026-11-21T23:57:19.294Z");
    expect(child.costUsd).toBeUndefined();
  });

  it("lists the delegation: who delegated what prompt to which agent type", () => {
    expect(tree.delegations).toEqual([
      {
        from: "main",
        fromType: "main",
        to: "a03261a2b1bf87fc6",
        agentType: "general-purpose",
        prompt: "SUBTASK-MARKER: please run echo from-child and report",
        description: "Run child echo",
        toolUseId: "toolu_fake0002",
        eventIndex: 1,
        background: false,
        status: "completed",
        durationMs: 378,
      },
    ]);
  });

  it("reports changes live, in order, as events are fed one by one", () => {
    const tracker = new SessionTracker();
    const kinds: string[] = [];
    for (const event of run.events) {
      for (const change of tracker.add(event)) kinds.push(label(change));
    }
    expect(kinds).toEqual([
      "tool_call main Agent",
      "delegation main->general-purpose",
      "session_start a03261a2b1bf87fc6",
      "tool_call a03261a2b1bf87fc6 Bash",
      "tool_result a03261a2b1bf87fc6 Bash 180ms",
      "session_end a03261a2b1bf87fc6 378ms",
      "tool_result main Agent 660ms",
      "run_end main",
    ]);
  });
});

function label(change: SessionChange): string {
  switch (change.kind) {
    case "tool_call":
      return `tool_call ${change.session.id} ${change.call.name}`;
    case "tool_result":
      return `tool_result ${change.session.id} ${change.call?.name} ${change.durationMs}ms`;
    case "delegation":
      return `delegation ${change.delegation.from}->${change.delegation.agentType}`;
    case "session_start":
      return `session_start ${change.session.id}`;
    case "session_end":
      return `session_end ${change.session.id} ${change.session.durationMs}ms`;
    case "tool_denied":
      return `tool_denied ${change.toolName}`;
    case "run_end":
      return `run_end ${change.session.id}`;
  }
}

describe("SessionTracker on other shapes", () => {
  it("counts a denied call's error once, on the real multi-tool run", () => {
    const tree = buildSessionTree(fixtureRun("multi-tool"));
    expect(tree.totalSessions).toBe(1);
    expect(tree.delegations).toEqual([]);
    expect(tree.root.toolCalls).toBe(5);
    expect(tree.root.toolCallsByName).toEqual({ Bash: 2, Read: 2, Write: 1 });
    // BLOCKME blocked by a hook, the missing file, the denied Write (denial + error result = one).
    expect(tree.root.toolErrors).toBe(3);
  });

  it("nests a subagent's own subagent at depth 2", () => {
    const run = syntheticRun([
      {
        name: "Agent",
        input: { subagent_type: "planner", prompt: "plan it" },
        startAgent: { id: "p1", type: "planner", prompt: "plan it" },
      },
      {
        agent: "p1",
        name: "Task",
        input: { subagent_type: "Explore", prompt: "look around", description: "survey" },
        startAgent: { id: "e1", type: "Explore", prompt: "look around" },
      },
      { agent: "e1", name: "Glob", input: { pattern: "**/*.ts" }, stopAgent: "e1" },
      { agent: "p1", name: "Read", input: { file_path: "a.ts" }, stopAgent: "p1" },
    ]);
    const tree = buildSessionTree(run);
    expect(tree.maxDepth).toBe(2);
    expect(tree.totalSessions).toBe(3);
    const planner = tree.root.children[0]!;
    expect(planner.children.map((c) => [c.id, c.type, c.depth, c.parent])).toEqual([
      ["e1", "Explore", 2, "p1"],
    ]);
    expect(tree.delegations.map((d) => [d.from, d.fromType, d.to, d.agentType, d.prompt, d.status])).toEqual([
      ["main", "main", "p1", "planner", "plan it", "completed"],
      ["p1", "planner", "e1", "Explore", "look around", "completed"],
    ]);
    expect(planner.toolCallsByName).toEqual({ Task: 1, Read: 1 });
    expect(tree.root.children[0]!.children[0]!.toolCallsByName).toEqual({ Glob: 1 });
  });

  it("places an agent whose start was never seen from the run's agent list, and ends it when its call returns", () => {
    const builder = new RunBuilder(["stream"]);
    builder.agent({ id: "x9", type: "reviewer", parent: "main", parent_tool_use_id: "t1" });
    builder.push({
      type: "tool_call",
      agent: "main",
      id: "t1",
      name: "Agent",
      input: { subagent_type: "reviewer" },
    });
    builder.push({ type: "tool_call", agent: "x9", id: "t2", name: "Read", input: { file_path: "x" } });
    builder.push({ type: "tool_result", agent: "x9", id: "t2", output: "", is_error: false });
    builder.push({
      type: "tool_result",
      agent: "main",
      id: "t1",
      output: "review",
      is_error: false,
      duration_ms: 4200,
    });
    const tree = buildSessionTree(builder.build());
    const reviewer = tree.root.children[0]!;
    expect(reviewer).toMatchObject({
      id: "x9",
      type: "reviewer",
      depth: 1,
      status: "finished",
      durationMs: 4200,
    });
    expect(reviewer.toolCalls).toBe(1);
  });

  it("marks a delegation whose call failed before any subagent started", () => {
    const builder = new RunBuilder(["hooks"]);
    builder.push({
      type: "tool_call",
      agent: "main",
      id: "t1",
      name: "Agent",
      input: { subagent_type: "Plan", prompt: "p" },
    });
    builder.push({
      type: "permission_denied",
      agent: "main",
      id: "t1",
      tool_name: "Agent",
      message: "denied",
    });
    builder.push({ type: "tool_result", agent: "main", id: "t1", output: "denied", is_error: true });
    const tree = buildSessionTree(builder.build());
    expect(tree.totalSessions).toBe(1);
    expect(tree.delegations).toMatchObject([{ agentType: "Plan", status: "failed", from: "main" }]);
    expect(tree.delegations[0]!.to).toBeUndefined();
    expect(tree.root.toolErrors).toBe(1);
  });

  it("keeps a background subagent running after its call returns", () => {
    const builder = new RunBuilder(["stream"]);
    builder.push({
      type: "tool_call",
      agent: "main",
      id: "t1",
      name: "Agent",
      input: { subagent_type: "worker", run_in_background: true },
    });
    builder.push({
      type: "subagent_start",
      agent: "main",
      agent_id: "w1",
      agent_type: "worker",
      parent_tool_use_id: "t1",
    });
    builder.push({ type: "tool_result", agent: "main", id: "t1", output: "started", is_error: false });
    builder.push({ type: "tool_call", agent: "w1", id: "t2", name: "Bash", input: { command: "sleep 1" } });
    const tracker = SessionTracker.fromRun(builder.build());
    const tree = tracker.buildTree();
    expect(tree.delegations[0]).toMatchObject({ background: true, status: "running" });
    expect(tracker.session("w1")!.status).toBe("running");
    expect(tracker.session("w1")!.toolCalls).toBe(1);
  });

  it("times live events that carry no timestamp with its clock", () => {
    let now = 1_000;
    const tracker = new SessionTracker({ clock: () => now });
    const events: RunEvent[] = [
      { index: 0, agent: "main", type: "tool_call", id: "t1", name: "Agent", input: { subagent_type: "x" } },
      {
        index: 1,
        agent: "main",
        type: "subagent_start",
        agent_id: "s1",
        agent_type: "x",
        parent_tool_use_id: "t1",
      },
      { index: 2, agent: "s1", type: "tool_call", id: "t2", name: "Bash", input: { command: "true" } },
      { index: 3, agent: "s1", type: "tool_result", id: "t2", output: "", is_error: false },
      { index: 4, agent: "s1", type: "subagent_stop", agent_id: "s1" },
    ];
    const ends: SessionChange[] = [];
    for (const event of events) {
      now += 250;
      ends.push(...tracker.add(event).filter((c) => c.kind === "session_end" || c.kind === "tool_result"));
    }
    expect(ends.map((c) => (c.kind === "tool_result" ? c.durationMs : c.session.durationMs))).toEqual([
      250, 750,
    ]);
  });

  it("handles a 100,000-event run", () => {
    const builder = new RunBuilder(["synthetic"]);
    for (let i = 0; i < 50_000; i++) {
      builder.push({
        type: "tool_call",
        agent: "main",
        id: `t${i}`,
        name: i % 2 ? "Read" : "Bash",
        input: {},
      });
      builder.push({ type: "tool_result", agent: "main", id: `t${i}`, output: "", is_error: i % 100 === 0 });
    }
    const tree = buildSessionTree(builder.build());
    expect(tree.root.toolCalls).toBe(50_000);
    expect(tree.root.toolErrors).toBe(500);
  });
});

describe("isoToMs", () => {
  it("reads ISO times exactly like Date.parse, fast for Claude Code's shape", () => {
    for (const iso of [
      "2026-11-21T23:57:19.001Z",
      "2026-11-22T00:00:00.000Z",
      "1999-12-31T23:59:59.999Z",
      "2026-11-21T23:57:19Z",
      "2026-11-21T23:57:19.001+02:00",
      "2026-11-21T25:00:00.000Z",
      "not a date at all, 24 ch",
    ]) {
      expect(isoToMs(iso), iso).toEqual(Date.parse(iso));
    }
  });
});

describe("tool names that are JavaScript prototype keys", () => {
  it("are counted per session like any other tool", () => {
    // The real multi-tool run, its calls renamed: Bash -> constructor, Read -> __proto__.
    const run = fixtureRun("multi-tool");
    const renamed = {
      ...run,
      events: run.events.map((event) =>
        event.type === "tool_call"
          ? {
              ...event,
              name: event.name === "Bash" ? "constructor" : event.name === "Read" ? "__proto__" : event.name,
            }
          : event,
      ),
    };
    const counts = buildSessionTree(renamed).root.toolCallsByName;
    expect(Object.keys(counts).sort()).toEqual(["Write", "__proto__", "constructor"]);
    expect(Object.getOwnPropertyDescriptor(counts, "constructor")?.value).toBe(2);
    expect(Object.getOwnPropertyDescriptor(counts, "__proto__")?.value).toBe(2);
  });
});

describe("SessionTracker on the real task-alias run (the stream names the delegation Task)", () => {
  it("nests the subagent under the Task call and lists the delegation, as for Agent", () => {
    const tree = buildSessionTree(fixtureRun("task-alias"));
    expect(tree.totalSessions).toBe(2);
    expect(tree.root.toolCallsByName).toEqual({ Task: 1 });
    const child = tree.root.children[0];
    expect(child).toMatchObject({
      type: "general-purpose",
      parentToolUseId: "toolu_vcr_0001",
      depth: 1,
      status: "finished",
      description: "read a",
    });
    expect(child?.toolCallsByName).toEqual({ Read: 1, Bash: 1 });
    expect(tree.delegations).toEqual([
      expect.objectContaining({
        from: "main",
        to: child?.id,
        agentType: "general-purpose",
        toolUseId: "toolu_vcr_0001",
      }),
    ]);
  });
});
