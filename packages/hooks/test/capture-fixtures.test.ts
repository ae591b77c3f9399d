import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  CapturedEventSchema,
  type ReadRunFolderOptions,
  readRunFolder,
  runFolderPath,
  runFromHookEvents,
  ToolCallEntrySchema,
  toolSequence,
} from "@evals/core";
import { afterAll, describe, expect, it } from "vitest";
import {
  getToolCalls,
  getToolSequence,
  readEvents,
  readHookErrors,
  readToolCallEntries,
} from "../src/index.js";
import { fixtureHookInputs } from "./fixtures.js";
import { runHook, tempDir } from "./spawn-hook.js";

/** The run in a run folder, read by @evals/core's readRunFolder (the one reader of run folders). */
const runIn = async (dir: string, options?: ReadRunFolderOptions) => (await readRunFolder(dir, options)).run;

/** Feeds every payload of a real run, in order, to the BUILT hook, one process per call like Claude Code. */
async function captureFixture(name: "multi-tool" | "subagent", root: string, runId: string) {
  const inputs = fixtureHookInputs(name);
  for (const input of inputs) {
    const result = await runHook(JSON.stringify(input), {
      env: { TEST_MODE: "true", TEST_RUN_ID: runId, EVALS_OUTPUT_DIR: root },
    });
    expect(result).toEqual({ code: 0, signal: null, stdout: "", stderr: "" });
  }
  return inputs;
}

describe("the built hook fed real Claude Code 2.1.330 payloads", () => {
  const temp = tempDir("fixtures");
  afterAll(temp.cleanup);

  it("writes every event of the multi-tool run to events.jsonl, unchanged and in order", async () => {
    const inputs = await captureFixture("multi-tool", temp.dir, "multi-tool");
    const runDir = runFolderPath("multi-tool", temp.dir);
    const lines = readFileSync(join(runDir, "events.jsonl"), "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(inputs.length);
    const events = lines.map((line) => CapturedEventSchema.parse(JSON.parse(line)));
    expect(events.map((line) => line.event)).toEqual(inputs);
    for (const line of events) {
      expect(line).toMatchObject({ version: 1, run_id: "multi-tool" });
      expect(line.truncated).toBeUndefined();
      expect(Number.isNaN(Date.parse(line.captured_at))).toBe(false);
      expect(line.pid).toBeGreaterThan(0);
    }
    // One call after another: seq strictly increases in file order.
    const seqs = events.map((line) => line.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(await readEvents(runDir)).toEqual(events);
    expect(await readHookErrors(runDir)).toEqual([]);
  });

  it("writes the seeds' ToolCallEntry lines for Pre/Post/PostFailure only", async () => {
    const runDir = runFolderPath("multi-tool", temp.dir);
    const entries = await readToolCallEntries(runDir);
    for (const entry of entries) ToolCallEntrySchema.parse(entry);
    expect(entries.map((entry) => `${entry.phase} ${entry.tool_name} ${entry.tool_use_id}`)).toEqual([
      "pre Bash toolu_fake0002",
      "post Bash toolu_fake0002",
      "pre Read toolu_fake0005",
      "post Read toolu_fake0005",
      "pre Bash toolu_fake0008",
      "pre Read toolu_fake0011",
      "post Read toolu_fake0011",
      "pre Write toolu_fake0014",
    ]);
    expect(entries[1]?.tool_output).toMatchObject({ stdout: "a.txt\nb.txt" });
    expect(entries[6]?.error).toMatch(/^File does not exist/);
    expect(entries[6]?.tool_output).toBeUndefined();
    expect(entries[0]).toMatchObject({
      tool_input: { command: "ls", description: "List files" },
      session_id: "a3e834f3-3b74-4b22-8ceb-500603eb7434",
      cwd: "/home/dev/project",
    });
  });

  it("reads the run back as @evals/core types: statuses, the blocked call, the denied Write", async () => {
    const run = await runIn(runFolderPath("multi-tool", temp.dir));
    expect(run.id).toBe("multi-tool");
    expect(run.session_id).toBe("a3e834f3-3b74-4b22-8ceb-500603eb7434");
    expect(toolSequence(run)).toEqual(
      toolSequence(runFromHookEvents(fixtureHookInputs("multi-tool") as never)),
    );
    const calls = await getToolCalls("multi-tool", { root: temp.dir });
    expect(calls.map((call) => [call.name, call.status])).toEqual([
      ["Bash", "ok"],
      ["Read", "ok"],
      // Blocked by a PreToolUse hook (exit 2): its PostToolBatch answered it without a PostToolUse.
      ["Bash", "denied"],
      ["Read", "error"],
      // PermissionRequest, no result, and the agent went on: denied.
      ["Write", "denied"],
    ]);
    expect(calls[4]?.permissionRequested).toBe(true);
    expect(calls[3]?.result?.error).toMatch(/^File does not exist/);
    expect(
      run.notes.some((note) => note.tool_use_id === "toolu_fake0014" && /inferred/.test(note.message)),
    ).toBe(true);
    // PostToolBatch was captured but is not a tool call.
    expect(calls).toHaveLength(5);
    expect(await getToolSequence("multi-tool", { root: temp.dir })).toEqual([
      "Bash",
      "Read",
      "Bash",
      "Read",
      "Write",
    ]);
    // Without inference the denial is only "incomplete".
    const raw = await getToolCalls("multi-tool", { root: temp.dir, inferDenials: false });
    expect(raw[4]?.status).toBe("incomplete");
  });

  it("attributes a subagent's tool calls to its agent id", async () => {
    await captureFixture("subagent", temp.dir, "subagent");
    const run = await runIn(runFolderPath("subagent", temp.dir));
    const child = "a03261a2b1bf87fc6";
    expect(run.agents).toContainEqual({
      id: child,
      type: "general-purpose",
      parent: "main",
      parent_tool_use_id: "toolu_fake0002",
    });
    const calls = await getToolCalls("subagent", { root: temp.dir });
    expect(calls.map((call) => [call.agent, call.name, call.status])).toEqual([
      ["main", "Agent", "ok"],
      [child, "Bash", "ok"],
    ]);
    expect(await getToolSequence("subagent", { root: temp.dir, agent: child })).toEqual(["Bash"]);
    const entries = await readToolCallEntries(runFolderPath("subagent", temp.dir));
    expect(entries.filter((entry) => entry.agent_id === child).map((entry) => entry.phase)).toEqual([
      "pre",
      "post",
    ]);
  });
});
