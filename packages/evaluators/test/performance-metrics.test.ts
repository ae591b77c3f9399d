import { MAIN_AGENT, RunBuilder, type RunEventInput } from "@evals/core";
import { fixtureRun } from "@evals/test-kit/claude-fixtures";
import { describe, expect, it } from "vitest";
import { measureRun, performanceMetrics } from "../src/index.js";
import { performanceMetricsRule } from "../src/rules/performance-metrics.js";
import { script, streamedCheck } from "./helpers.js";

describe("performance-metrics", () => {
  it("always passes and reports the real run's turns, cost, tokens and calls per tool", () => {
    const result = performanceMetrics(fixtureRun("multi-tool"));
    expect(result.passed).toBe(true);
    expect(result.score).toBe(1);
    const metrics = measureRun(fixtureRun("multi-tool"));
    expect(metrics.toolCalls).toBe(5);
    expect(metrics.byTool.Bash).toMatchObject({ calls: 2, errors: 1 });
    expect(metrics.byTool.Read).toMatchObject({ calls: 2, errors: 1 });
    expect(metrics.costUsd).toBeCloseTo(0.30258);
    expect(metrics.tokens?.input).toBe(74755);
    expect(metrics.turns).toBeGreaterThan(0);
    expect(metrics.byAgent).toEqual({ main: 5 });
    expect(result.evidence[0]?.description).toContain("5 tool calls");
  });

  it("adds up both result lines of a background subagent's run, and takes its running cost once", () => {
    const metrics = measureRun(fixtureRun("background-subagent"));
    expect(metrics.turns).toBe(2 + 1);
    expect(metrics.tokens).toEqual({ input: 24885 + 13002, output: 66 + 14, cacheRead: 0, cacheCreation: 0 });
    expect(metrics.costUsd).toBe(0.212956);
  });

  it("measures tool durations and idle time from timestamps", () => {
    // Each event is one second after the previous: every call runs 1 s, between calls 1 s passes.
    const run = script()
      .prompt("go")
      .call("Read", { file_path: "a" })
      .call("Read", { file_path: "b" })
      .call("Bash", { command: "make" }, { durationMs: 250 })
      .build();
    const metrics = measureRun(run);
    expect(metrics.byTool.Read).toMatchObject({
      calls: 2,
      timed: 2,
      totalMs: 2000,
      avgMs: 1000,
      minMs: 1000,
      maxMs: 1000,
    });
    expect(metrics.byTool.Bash).toMatchObject({ totalMs: 250 });
    expect(metrics.durationMs).toBe(6000);
    expect(metrics.toolTimeMs).toBe(2250);
    expect(metrics.idleTimeMs).toBe(3750);
    expect(metrics.longestGapMs).toBe(1000);
    expect(metrics.eventsByType).toMatchObject({ tool_call: 3, tool_result: 3, user_message: 1 });
  });
});

describe("tool names that are JavaScript prototype keys", () => {
  it("are counted like any other tool, without touching Object.prototype", () => {
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
    const metrics = measureRun(renamed);
    expect(Object.keys(metrics.byTool).sort()).toEqual(["Write", "__proto__", "constructor"]);
    expect(Object.getOwnPropertyDescriptor(metrics.byTool, "__proto__")?.value.calls).toBe(2);
    expect(Object.getOwnPropertyDescriptor(metrics.byTool, "constructor")?.value.calls).toBe(2);
    expect(({} as Record<string, unknown>).calls).toBeUndefined();
  });
});

describe("performance-metrics while the run is read", () => {
  it("measures as it measures the whole run: parallel calls answered out of order, a subagent, a denial", () => {
    const builder = new RunBuilder(["stream"]);
    builder.meta.cwd = "/repo";
    const second = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
    const push = (s: number, event: RunEventInput) => builder.push({ ...event, timestamp: second(s) });
    builder.agent({ id: "sub", type: "Explore", parent: MAIN_AGENT, parent_tool_use_id: "d" });
    push(0, { type: "user_message", agent: MAIN_AGENT, text: "go" });
    push(1, { type: "assistant_text", agent: MAIN_AGENT, text: "Looking", message_id: "m1" });
    push(2, { type: "tool_call", agent: MAIN_AGENT, id: "a", name: "Read", input: { file_path: "a.ts" } });
    push(2, { type: "tool_call", agent: MAIN_AGENT, id: "b", name: "Bash", input: { command: "make" } });
    push(3, { type: "tool_call", agent: MAIN_AGENT, id: "c", name: "Edit", input: { file_path: "a.ts" } });
    push(4, { type: "tool_result", agent: MAIN_AGENT, id: "c", output: "no", is_error: true, error: "no" });
    push(6, { type: "tool_result", agent: MAIN_AGENT, id: "a", output: "x", is_error: false });
    push(6, {
      type: "tool_result",
      agent: MAIN_AGENT,
      id: "b",
      output: "",
      is_error: false,
      duration_ms: 500.5,
    });
    push(7, {
      type: "tool_call",
      agent: MAIN_AGENT,
      id: "d",
      name: "Task",
      input: { subagent_type: "Explore" },
    });
    push(8, { type: "tool_call", agent: "sub", id: "e", name: "Write", input: { file_path: "b.ts" } });
    push(8, { type: "permission_denied", agent: "sub", id: "e", tool_name: "Write", message: "no" });
    push(9, { type: "tool_result", agent: "sub", id: "e", output: "no", is_error: true, error: "denied" });
    push(10, { type: "tool_result", agent: MAIN_AGENT, id: "d", output: "done", is_error: false });
    push(11, { type: "assistant_text", agent: MAIN_AGENT, text: "Done", message_id: "m2" });
    const run = builder.build();

    const streamed = streamedCheck(performanceMetricsRule, run);
    expect(streamed).toEqual(performanceMetricsRule.check(run));
    expect(streamed?.metadata).toMatchObject({
      toolCalls: 5,
      byTool: { Agent: { calls: 1, totalMs: 3000 }, Bash: { totalMs: 500.5 }, Write: { errors: 1 } },
      byAgent: { main: 4, sub: 1 },
      // a (2..6 s) covers b and c; d (7..10 s) covers e.
      toolTimeMs: 7000,
      idleTimeMs: 4000,
      // No result line: the main agent's distinct messages.
      turns: 2,
    });
  });

  it("adds up the busy time of a long run without keeping its calls", () => {
    // Every call runs 1 s and 1 s passes between calls: far more calls than busy spans are kept.
    const long = script().prompt("go");
    for (let i = 0; i < 5000; i++) long.call("Read", { file_path: `f${i}.ts` });
    const run = long.build();
    const streamed = streamedCheck(performanceMetricsRule, run);
    expect(streamed).toEqual(performanceMetricsRule.check(run));
    expect(streamed?.metadata).toMatchObject({ toolTimeMs: 5000 * 1000, idleTimeMs: 5000 * 1000 });
  });

  it("times calls across minutes and timestamp forms as Date.parse reads them", () => {
    const builder = new RunBuilder(["stream"]);
    const stamps = [
      "2026-11-21T10:00:58.250Z",
      "2026-11-21T10:00:59.999Z",
      "2026-11-21T10:01:00.001Z",
      "2026-11-21T10:01:07Z",
      "2026-11-21T11:01:07.500+01:00",
      "2026-11-21T10:01:09.125Z",
      "2026-11-21T10:01:61.000Z",
      "2026-11-21T10:01:10.000Z",
    ];
    for (let i = 0; i < stamps.length; i += 2) {
      const id = `t${i}`;
      builder.push({
        type: "tool_call",
        agent: MAIN_AGENT,
        id,
        name: "Read",
        input: {},
        timestamp: stamps[i],
      });
      builder.push({
        type: "tool_result",
        agent: MAIN_AGENT,
        id,
        output: "",
        is_error: false,
        timestamp: stamps[i + 1],
      });
    }
    const metrics = measureRun(builder.build());
    const ms = (at: string) => Date.parse(at);
    // 1749 + 6999 + 1625; the last call's start is not a time (second 61), so it is not timed.
    expect(metrics.byTool.Read?.totalMs).toBe(
      ms(stamps[1] as string) -
        ms(stamps[0] as string) +
        (ms(stamps[3] as string) - ms(stamps[2] as string)) +
        (ms(stamps[5] as string) - ms(stamps[4] as string)),
    );
    expect(metrics.byTool.Read).toMatchObject({ calls: 4, timed: 3, minMs: 1625, maxMs: 6999 });
  });
});
