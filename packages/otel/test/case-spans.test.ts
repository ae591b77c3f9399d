import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseJsonl, RunBuilder, runFromStreamJson } from "@evals/core";
import { caseResult } from "@evals/logging";
import { InMemorySpanExporter, type ReadableSpan } from "@opentelemetry/sdk-trace";
import { describe, expect, it } from "vitest";
import { agentTurns } from "../src/agent-turns.js";
import { eventTimes } from "../src/event-times.js";
import { CaseTraceExporter, MAX_ATTRIBUTE_CHARS } from "../src/index.js";

/** Real captured runs of Claude Code 2.1.330 (see fixtures/claude-code-2.1.330/README.md). */
const fixture = (name: string) => {
  const file = fileURLToPath(
    new URL(`../../../fixtures/claude-code-2.1.330/${name}/stream.jsonl`, import.meta.url),
  );
  return runFromStreamJson(parseJsonl(readFileSync(file, "utf8"), file));
};

async function exported(run: ReturnType<typeof fixture>, redact?: { secrets: string[] }) {
  const memory = new InMemorySpanExporter();
  const exporter = new CaseTraceExporter({ exporter: memory, ...(redact ? { redact } : {}) });
  const result = caseResult({
    id: "multi",
    name: "multi tool",
    suite: "fixtures",
    tags: [],
    trials: [{ status: "passed", scores: [], violations: [], duration_ms: 2_000, run }],
  });
  await exporter.exportCase(result, { endTime: Date.parse("2026-11-22T00:00:00Z") });
  // Read before shutdown, which empties the in-memory exporter.
  const spans = memory.getFinishedSpans();
  await exporter.shutdown();
  return spans;
}

const named = (spans: ReadableSpan[], name: string) => spans.filter((span) => span.name === name);
const parentOf = (spans: ReadableSpan[], span: ReadableSpan) =>
  spans.find((candidate) => candidate.spanContext().spanId === span.parentSpanContext?.spanId);

describe("the spans of a real captured run", () => {
  it("makes one chat span per model message: a text and a tool_use of one message are one turn", async () => {
    const run = fixture("multi-tool");
    const turns = agentTurns(run, "main");
    // msg_fake0001 says "Step 1: list." and calls Bash in two stream lines.
    expect(turns[0]?.messageId).toBe("msg_fake0001");
    expect(turns[0]?.texts.map((text) => text.text)).toEqual(["Step 1: list."]);
    expect(turns[0]?.calls.map((call) => call.name)).toEqual(["Bash"]);
    const spans = await exported(run);
    const chats = spans.filter((span) => span.attributes["gen_ai.operation.name"] === "chat");
    expect(chats.map((span) => span.attributes["gen_ai.response.id"])).toEqual(
      turns.map((turn) => turn.messageId),
    );
    const bash = named(spans, "execute_tool Bash")[0]!;
    expect(parentOf(spans, bash)?.attributes["gen_ai.response.id"]).toBe("msg_fake0001");
  });

  it("gives a failed tool call an ERROR status with the tool's error, and a good one none", async () => {
    const spans = await exported(fixture("multi-tool"));
    const [listing, blocked] = named(spans, "execute_tool Bash");
    expect(listing?.status.code).toBe(0);
    expect(listing?.attributes["gen_ai.tool.call.result"]).toBe("a.txt\nb.txt");
    expect(blocked?.status).toMatchObject({ code: 2 });
    expect(blocked?.status.message).toContain("Blocked by eval hook");
    expect(blocked?.attributes["error.type"]).toBe("tool_error");
  });

  it("puts a subagent's span under the Agent call that started it, with its own tools", async () => {
    const run = fixture("subagent");
    const spans = await exported(run);
    const subagent = spans.find(
      (span) => span.name.startsWith("invoke_agent ") && span.name !== "invoke_agent main",
    )!;
    const call = parentOf(spans, subagent)!;
    expect(call.attributes["gen_ai.tool.name"]).toMatch(/^(Agent|Task)$/);
    const info = run.agents.find((agent) => agent.id !== "main")!;
    expect(call.attributes["gen_ai.tool.call.id"]).toBe(info.parent_tool_use_id);
    expect(subagent.attributes["gen_ai.agent.id"]).toBe(info.id);
  });

  it("redacts token formats by default and cuts long attributes", async () => {
    const builder = new RunBuilder(["synthetic"]);
    builder.push({
      type: "tool_call",
      agent: "main",
      id: "t1",
      name: "Bash",
      input: { command: "echo sk-ant-api03-abcdefghijklmnop" },
    });
    builder.push({
      type: "tool_result",
      agent: "main",
      id: "t1",
      output: "x".repeat(MAX_ATTRIBUTE_CHARS + 10),
      is_error: false,
    });
    const spans = await exported(builder.build());
    const tool = named(spans, "execute_tool Bash")[0]!;
    expect(tool.attributes["gen_ai.tool.call.arguments"]).toBe('{"command":"echo [REDACTED]"}');
    expect(String(tool.attributes["gen_ai.tool.call.result"])).toHaveLength(
      MAX_ATTRIBUTE_CHARS + "…[truncated]".length,
    );
  });
});

describe("eventTimes", () => {
  it("keeps known timestamps in order and spreads the unknown ones between them", () => {
    const at = (iso?: string) => ({
      index: 0,
      agent: "main",
      type: "user_message" as const,
      text: "",
      ...(iso ? { timestamp: iso } : {}),
    });
    const start = Date.parse("2026-01-01T00:00:00Z");
    const times = eventTimes([at(), at("2026-01-01T00:00:04Z"), at(), at()], start, start + 10_000);
    expect(times).toEqual([start + 2_000, start + 4_000, start + 6_000, start + 8_000]);
    // A timestamp outside the trial (another clock) is ignored rather than trusted.
    expect(eventTimes([at("2020-01-01T00:00:00Z")], start, start + 10_000)).toEqual([start + 5_000]);
  });
});
