import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { claudeAvailable, claudeCodeRunner } from "@evals/claude-code";
import { listToolCalls } from "@evals/core";
import { loadCases } from "@evals/evaluators";
import { type RunCasesResult, runCases } from "@evals/harness";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CollectedSpan, OtlpCollector } from "./otlp-collector.js";

/*
 * The delegation example's two cases, replayed from their recordings by the real claude CLI through
 * runCases, with OpenTelemetry export turned on the way a CI job would (EVALS_OTEL=1 and the standard
 * OTEL_EXPORTER_OTLP_* variables, as for Langfuse's OTLP endpoint), into a collector in this process.
 * A secret is planted (the suite's `otel.redact`, so that the replay itself still matches its
 * recording): a line of the fixture's CHANGELOG.md, which the agents read and edit. It must not
 * leave the process.
 */
const delegation = (path: string) =>
  fileURLToPath(new URL(`../../../examples/delegation/${path}`, import.meta.url));
const claudeBin = resolve(__dirname, "../../../node_modules/.bin/claude");
const PLANTED = "Added: export to CSV.";
const ENV = {
  EVALS_OTEL: "1",
  OTEL_EXPORTER_OTLP_HEADERS: "authorization=Basic cGstbGYtdGVzdDpzay1sZi10ZXN0",
  OTEL_SERVICE_NAME: "delegation-evals",
};

const collector = new OtlpCollector();
const scratch = mkdtempSync(join(tmpdir(), "otel-export-"));
let outcome: RunCasesResult;
const saved: Record<string, string | undefined> = {};

const children = (parent: CollectedSpan) =>
  collector.spans.filter((span) => span.parentSpanId === parent.spanId);
const child = (parent: CollectedSpan, name: string) => {
  const found = children(parent).filter((span) => span.name === name);
  expect(
    found.map((span) => span.name),
    `${parent.name} > ${name}`,
  ).toEqual([name]);
  return found[0]!;
};
const below = (root: CollectedSpan): CollectedSpan[] =>
  children(root).flatMap((span) => [span, ...below(span)]);

describe.skipIf(!claudeAvailable({ claudeBin }).available)("a replayed suite exported over OTLP", () => {
  beforeAll(async () => {
    const endpoint = await collector.start();
    for (const [name, value] of Object.entries({ ...ENV, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint })) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
    outcome = await runCases(loadCases(delegation("cases/delegation.yaml")), {
      suite: "delegation",
      cassette: { dir: delegation("cassettes"), mode: "strict" },
      agent: claudeCodeRunner,
      runAgent: { options: { claudeBin } },
      outputRoot: scratch,
      otel: { redact: { secrets: [PLANTED] } },
    });
  }, 300_000);

  afterAll(async () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await collector.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("sends one trace per case, to /v1/traces with the configured headers and service name", () => {
    expect(outcome.outcomes.map((o) => o.result.trials[0]?.origin)).toEqual(["replay", "replay"]);
    const roots = collector.spans.filter((span) => !span.parentSpanId);
    expect(roots.map((span) => span.name).sort()).toEqual([
      "case edits CHANGELOG.md itself instead of delegating",
      "case hands the entry to the changelog-writer subagent",
    ]);
    expect(new Set(roots.map((span) => span.traceId)).size).toBe(2);
    for (const root of roots) {
      expect(below(root).every((span) => span.traceId === root.traceId)).toBe(true);
    }
    expect(collector.requests.every((request) => request.path === "/v1/traces")).toBe(true);
    expect(collector.requests[0]?.headers.authorization).toBe("Basic cGstbGYtdGVzdDpzay1sZi10ZXN0");
    expect(new Set(collector.spans.map((span) => span.service))).toEqual(new Set(["delegation-evals"]));
  });

  it("nests case > trial > main agent > turn > tool call > subagent > its turns and tools", () => {
    const result = outcome.outcomes[0]!.result;
    const run = result.trials[0]!.run!;
    const root = collector.spans.find((span) => span.name === `case ${result.name}`)!;
    expect(root.attributes).toMatchObject({
      "evals.suite": "delegation",
      "evals.case.id": "delegates-to-changelog-writer",
      "evals.case.status": result.status,
      "evals.case.trials": 1,
    });
    const trial = child(root, "trial 1");
    expect(trial.attributes).toMatchObject({
      "evals.trial.status": result.trials[0]!.status,
      "evals.run.origin": "replay",
      "evals.run.id": result.trials[0]!.run_id,
    });
    // Each score is an evaluation event and an attribute.
    const scorers = result.trials[0]!.scores.map((score) => score.scorer);
    expect(trial.events.map((event) => event.attributes["gen_ai.evaluation.name"])).toEqual(scorers);
    expect(trial.attributes[`evals.score.${scorers[0]}`]).toBe(result.trials[0]!.scores[0]!.score);

    const main = child(trial, "invoke_agent main");
    expect(main.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.provider.name": "anthropic",
      "gen_ai.agent.name": "main",
      "gen_ai.request.model": run.model,
      "gen_ai.conversation.id": run.session_id,
    });
    expect(main.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);
    expect(main.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0);
    expect(main.attributes["gen_ai.usage.cost"]).toBeGreaterThan(0);

    const turns = children(main);
    expect(turns.length).toBeGreaterThan(0);
    expect(new Set(turns.map((span) => span.name))).toEqual(new Set([`chat ${run.model}`]));
    expect(turns.every((turn) => turn.attributes["gen_ai.operation.name"] === "chat")).toBe(true);

    const agentCall = listToolCalls(run).find((call) => call.name === "Agent" || call.name === "Task")!;
    const agentTool = turns.flatMap(children).find((span) => span.name === `execute_tool ${agentCall.name}`)!;
    expect(agentTool.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": agentCall.name,
      "gen_ai.tool.call.id": agentCall.id,
    });
    expect(JSON.parse(agentTool.attributes["gen_ai.tool.call.arguments"] as string)).toMatchObject({
      subagent_type: "changelog-writer",
    });

    const subagent = child(agentTool, "invoke_agent changelog-writer");
    const subTools = children(subagent)
      .flatMap(children)
      .filter((span) => span.name.startsWith("execute_tool"));
    expect(subTools.map((span) => span.name)).toEqual(["execute_tool Read", "execute_tool Edit"]);
    const read = subTools[0]!;
    expect(read.attributes["gen_ai.tool.call.arguments"]).toContain("CHANGELOG.md");
    expect(read.attributes["gen_ai.tool.call.result"]).toContain("## 1.1.0");

    // Every span lies within its parent.
    for (const span of below(root)) {
      const parent = collector.spans.find((candidate) => candidate.spanId === span.parentSpanId)!;
      expect(span.startNs >= parent.startNs && span.endNs <= parent.endNs, span.name).toBe(true);
    }
  });

  it("redacts the planted secret from every attribute, the tool results included", () => {
    const everything = JSON.stringify(
      collector.spans.map((span) => [span.attributes, span.events, span.status]),
    );
    expect(everything).not.toContain(PLANTED);
    const read = collector.spans.find((span) => span.name === "execute_tool Read")!;
    expect(read.attributes["gen_ai.tool.call.result"]).toContain("- [REDACTED]");
  });

  it("sends nothing when export is off (EVALS_OTEL unset, the endpoint still set)", async () => {
    const before = collector.requests.length;
    delete process.env.EVALS_OTEL;
    const [first] = loadCases(delegation("cases/delegation.yaml"));
    const off = await runCases([first!], {
      suite: "delegation",
      cassette: { dir: delegation("cassettes"), mode: "strict" },
      agent: claudeCodeRunner,
      runAgent: { options: { claudeBin } },
      outputRoot: scratch,
    });
    expect(off.outcomes[0]?.result.trials[0]?.origin).toBe("replay");
    expect(collector.requests.length).toBe(before);
  }, 180_000);

  it("marks the case that did not delegate: no subagent span, its main agent's own Edit", () => {
    const result = outcome.outcomes[1]!.result;
    const root = collector.spans.find((span) => span.name === `case ${result.name}`)!;
    const spans = below(root);
    expect(spans.some((span) => span.name.startsWith("invoke_agent changelog-writer"))).toBe(false);
    expect(spans.map((span) => span.name)).toContain("execute_tool Edit");
    expect(root.attributes["evals.case.status"]).toBe(result.status);
  });
});
