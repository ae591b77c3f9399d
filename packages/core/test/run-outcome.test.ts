import { describe, expect, it } from "vitest";
import {
  eventsOfType,
  finalResult,
  parseHookInput,
  RunSchema,
  runFromHookEvents,
  runFromStreamJson,
  runSummary,
} from "../src/index.js";
import { fixtureHookInputs, fixtureStream } from "./fixtures.js";

describe("the Run keeps how the run ended (real 2.1.330 runs)", () => {
  it("keeps the API error's status and type (the subtype says success)", () => {
    const run = runFromStreamJson(fixtureStream("api-error"));
    expect(RunSchema.parse(run)).toEqual(run);
    expect(finalResult(run)).toMatchObject({
      subtype: "success",
      is_error: true,
      api_error_status: 400,
      api_error_type: "invalid_request_error",
      terminal_reason: "api_error",
    });
  });

  it("keeps the max-turns text", () => {
    const run = runFromStreamJson(fixtureStream("max-turns"));
    expect(RunSchema.parse(run)).toEqual(run);
    expect(finalResult(run)).toMatchObject({
      subtype: "error_max_turns",
      is_error: true,
      errors: ["Reached maximum number of turns (2)"],
      terminal_reason: "max_turns",
    });
  });
});

describe("a background subagent's two result lines (real 2.1.330 run)", () => {
  it("adds up turns and tokens of both lines, takes the cost once and the last line's text", () => {
    const run = runFromStreamJson(fixtureStream("background-subagent"), { prompts: ["background"] });
    expect(eventsOfType(run, "final_result")).toHaveLength(2);
    const summary = runSummary(run);
    expect(summary.results).toBe(2);
    expect(summary.turns).toBe(3);
    expect(summary.tokens).toEqual({
      input: 24885 + 13002,
      output: 66 + 14,
      cache_creation: 0,
      cache_read: 0,
    });
    expect(summary.cost_usd).toBe(0.212956);
    expect(summary.final_text).toBe("parent saw the child finish");
  });

  it("attributes the <task-notification> to the subagent, as a notification, not a user prompt", () => {
    const run = runFromHookEvents(fixtureHookInputs("background-subagent").map(parseHookInput));
    expect(RunSchema.parse(run)).toEqual(run);
    const child = run.agents.find((agent) => agent.id !== "main");
    expect(child?.type).toBe("general-purpose");
    const messages = eventsOfType(run, "user_message");
    expect(messages.filter((message) => message.agent === "main").map((message) => message.text)).toEqual([
      "background",
    ]);
    const notification = messages.find((message) => message.text.startsWith("<task-notification>"));
    expect(notification).toMatchObject({ agent: child?.id, notification: true });
    expect(run.agents.map((agent) => agent.id)).toEqual(["main", child?.id]);
  });

  it("sums up a run with one result line as that line", () => {
    const run = runFromStreamJson(fixtureStream("multi-tool"));
    const final = finalResult(run);
    expect(runSummary(run)).toMatchObject({
      results: 1,
      turns: final?.num_turns,
      cost_usd: final?.total_cost_usd,
      final_text: "All steps done.",
    });
  });

  it("has no totals for a run without a result line", () => {
    const summary = runSummary({ events: [] });
    expect(summary).toEqual({ results: 0 });
  });
});
