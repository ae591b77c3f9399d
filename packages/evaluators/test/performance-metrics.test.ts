import { fixtureRun } from "@evals/test-kit/claude-fixtures";
import { describe, expect, it } from "vitest";
import { measureRun, performanceMetrics } from "../src/index.js";
import { script } from "./helpers.js";

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
