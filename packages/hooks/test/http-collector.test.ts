import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CapturedEvent, runFolderPath } from "@evals/core";
import {
  countToolResults,
  firstUserText,
  isSubagentRequest,
  reply,
  scripted,
  startModelServer,
  text,
  toolUse,
} from "@evals/vcr";
import { describe, expect, it } from "vitest";
import {
  COLLECTOR_STATUS,
  httpHookSettings,
  lostHookEvents,
  readEvents,
  readHookErrors,
  readToolCallEntries,
  startHookCollector,
  writeHookSettings,
} from "../src/index.js";
import { runClaude, type Sandbox, sandbox } from "./claude.js";

/** Bash, Read, a failing Read, a denied Write, a subagent running Bash, then an answer. */
const steps = (box: Sandbox) =>
  scripted((request, context) => {
    if (isSubagentRequest(request, context.headers)) {
      return countToolResults(request) === 0
        ? reply(toolUse("Bash", { command: "echo from-child", description: "child echo" }))
        : reply(text(`child done: ${firstUserText(request).slice(0, 20)}`));
    }
    switch (countToolResults(request)) {
      case 0:
        return reply(text("Step 1."), toolUse("Bash", { command: "echo hooks-bash", description: "echo" }));
      case 1:
        return reply(toolUse("Read", { file_path: join(box.project, "a.txt") }));
      case 2:
        return reply(toolUse("Read", { file_path: join(box.project, "missing.txt") }));
      case 3:
        return reply(toolUse("Write", { file_path: join(box.project, "out.txt"), content: "never\n" }));
      case 4:
        return reply(
          toolUse("Agent", {
            subagent_type: "general-purpose",
            description: "child task",
            prompt: "SUBTASK-MARKER: run echo from-child",
            run_in_background: false,
          }),
        );
      default:
        return reply(text("All steps done."));
    }
  });

/** One real run of the steps with `settings`, capturing to `runId` under `root`. */
async function runSteps(box: Sandbox, root: string, runId: string, settings: string) {
  const server = await startModelServer({ source: steps(box) });
  try {
    const result = await runClaude(box, {
      prompt: "do the steps",
      args: ["--settings", settings, "--include-hook-events"],
      env: { ...server.env(), TEST_MODE: "true", TEST_RUN_ID: runId, EVALS_OUTPUT_DIR: root },
    });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.lines.find((line) => line.type === "result")).toMatchObject({ result: "All steps done." });
    return result;
  } finally {
    await server.close();
  }
}

/**
 * What may differ between two runs of the same script, replaced explicitly: the line's envelope
 * (time, seq, pid, run id, and the format version: the shell entry writes raw version-2 lines, the
 * collector the Node entry's version 1), each run's random ids (session, subagent, prompt; the same
 * id gets the same placeholder, so which events share one is still compared), the paths made of
 * them, and tool durations.
 */
function normalized(lines: CapturedEvent[]): unknown[] {
  const ids = new Map<string, string>();
  const collect = (value: unknown): void => {
    if (!value || typeof value !== "object") return;
    for (const [key, field] of Object.entries(value)) {
      if (RANDOM_IDS.has(key) && !ids.has(String(field))) ids.set(String(field), `<id ${ids.size + 1}>`);
      else collect(field);
    }
  };
  for (const line of lines) collect(line.event);
  // Text may quote them too (the Agent tool's hand-back names the agent and its duration).
  const inText = (text: string) => {
    let out = text.replace(/duration_ms: \d+/g, "duration_ms: <ms>");
    for (const [id, placeholder] of ids) out = out.replaceAll(id, placeholder);
    return out;
  };
  const walk = (value: unknown): unknown => {
    if (typeof value === "string") return inText(value);
    if (Array.isArray(value)) return value.map(walk);
    if (!value || typeof value !== "object") return value;
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) {
      if (RANDOM_IDS.has(key)) out[key] = ids.get(String(field));
      else if (PATHS.has(key)) out[key] = "<path>";
      else if (DURATIONS.has(key)) out[key] = "<ms>";
      else out[key] = walk(field);
    }
    return out;
  };
  return lines.map((line) => ({ truncated: line.truncated, event: walk(line.event) }));
}
const RANDOM_IDS = new Set(["session_id", "agent_id", "agentId", "prompt_id", "message_id", "turn_id"]);
const PATHS = new Set(["transcript_path", "agent_transcript_path"]);
const DURATIONS = new Set(["duration_ms", "totalDurationMs"]);

describe("the HTTP collector with the real claude CLI (2.1.330)", () => {
  it("captures the same events as the command hook on the same run", async () => {
    const box = sandbox();
    writeFileSync(join(box.project, "a.txt"), "alpha\n");
    const root = join(box.home, "output");
    const collector = await startHookCollector({ runId: "http", outputRoot: root });
    try {
      const command = await runSteps(box, root, "command", writeHookSettings(join(box.home, "command.json")));
      const httpSettings = join(box.home, "http.json");
      writeFileSync(httpSettings, JSON.stringify(httpHookSettings({ url: collector.url })));
      const http = await runSteps(box, root, "http", httpSettings);
      expect(existsSync(join(box.project, "out.txt"))).toBe(false);

      const byCommand = await readEvents(runFolderPath("command", root));
      const byHttp = await readEvents(runFolderPath("http", root));
      expect(byHttp.length).toBe(collector.captured);
      expect(byHttp.every((line) => line.pid === process.pid && line.run_id === "http")).toBe(true);
      const names = byHttp.map((line) => line.event.hook_event_name);
      for (const name of ["PermissionRequest", "PostToolUseFailure", "SubagentStart", "SubagentStop"])
        expect(names).toContain(name);
      expect(normalized(byHttp)).toEqual(normalized(byCommand));
      // The tool-call view is written by the same code: equal too, but for the ids and times.
      const entries = async (runId: string) =>
        (await readToolCallEntries(runFolderPath(runId, root))).map((entry) => [
          entry.tool_name,
          entry.phase,
          entry.tool_input,
        ]);
      expect(await entries("http")).toEqual(await entries("command"));
      expect(await readHookErrors(runFolderPath("http", root))).toEqual([]);

      // Nothing lost by either, by the stream's count of the hooks the CLI ran.
      expect(lostHookEvents({ streamLines: http.lines, captured: byHttp, capture: "http" })).toEqual([]);
      // The collector's own count: it wrote every event it received.
      expect(collector.failed).toEqual({});
      expect(lostHookEvents({ streamLines: command.lines, captured: byCommand, capture: "command" })).toEqual(
        [],
      );
      const responses = http.lines.filter((line) => line.subtype === "hook_response");
      expect(responses.length).toBe(byHttp.length);
      expect(responses.every((line) => line.exit_code === COLLECTOR_STATUS)).toBe(true);
    } finally {
      await collector.close();
      box.cleanup();
    }
  });
});
