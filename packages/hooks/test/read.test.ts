import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  JsonlLineError,
  listToolCalls,
  type ReadRunFolderOptions,
  readRunFolder,
  runFolderPath,
} from "@evals/core";
import { afterAll, describe, expect, it, vi } from "vitest";
import {
  CaptureNotFoundError,
  captureHookEvent,
  getToolCalls,
  getToolSequence,
  readEvents,
  readHookErrors,
  readToolCallEntries,
} from "../src/index.js";
import { tempDir } from "./spawn-hook.js";

/** The run in a run folder, read by @evals/core's readRunFolder (the one reader of run folders). */
const runIn = async (dir: string, options?: ReadRunFolderOptions) => (await readRunFolder(dir, options)).run;

const temp = tempDir("read");
afterAll(temp.cleanup);
let count = 0;

/** A run folder with these events.jsonl lines (objects are serialized, strings written as is). */
function runWith(lines: (object | string)[], extra: Record<string, string> = {}) {
  const runDir = join(temp.dir, `run-${++count}`);
  mkdirSync(runDir, { recursive: true });
  const text = lines.map((line) => (typeof line === "string" ? line : JSON.stringify(line))).join("\n");
  writeFileSync(join(runDir, "events.jsonl"), `${text}\n`);
  for (const [name, content] of Object.entries(extra)) writeFileSync(join(runDir, name), content);
  return runDir;
}

const common = { session_id: "s1", cwd: "/p" };
const line = (seq: number, event: Record<string, unknown>) => ({
  version: 1,
  captured_at: new Date(1_800_000_000_000 + seq).toISOString(),
  run_id: "r",
  seq,
  pid: 1,
  event: { ...common, ...event },
});
const pre = (id: string, name = "Bash", extra: object = {}) => ({
  hook_event_name: "PreToolUse",
  tool_name: name,
  tool_input: { n: id },
  tool_use_id: id,
  ...extra,
});
const post = (id: string, name = "Bash", extra: object = {}) => ({
  hook_event_name: "PostToolUse",
  tool_name: name,
  tool_input: { n: id },
  tool_use_id: id,
  tool_response: { ok: id },
  ...extra,
});

describe("readEvents", () => {
  it("orders lines by seq, keeping file order for equal seqs", async () => {
    const runDir = runWith([
      line(30, pre("c")),
      line(10, pre("a")),
      line(20, pre("b1")),
      line(20, pre("b2")),
    ]);
    const events = await readEvents(runDir);
    expect(events.map((event) => event.event.tool_use_id)).toEqual(["a", "b1", "b2", "c"]);
  });

  it("throws on a bad line naming file, line and field, or skips and reports it", async () => {
    const runDir = runWith([
      line(1, pre("a")),
      "{not json",
      {
        ...line(3, pre("b")),
        event: { ...common, hook_event_name: "PreToolUse", tool_name: 7, tool_input: {} },
      },
      line(4, post("a")),
    ]);
    const error = await readEvents(runDir).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(JsonlLineError);
    expect((error as JsonlLineError).message).toMatch(/events\.jsonl:2: invalid JSON/);
    const bad: JsonlLineError[] = [];
    const events = await readEvents(runDir, { onError: "skip", onBadLine: (e) => bad.push(e) });
    expect(events).toHaveLength(2);
    expect(bad.map((e) => [e.line, e.field])).toEqual([
      [2, undefined],
      [3, "event.tool_name"],
    ]);
  });

  it("says what to check when nothing was captured", async () => {
    const error = await readEvents(join(temp.dir, "never")).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CaptureNotFoundError);
    expect((error as Error).message).toMatch(/TEST_MODE=true[\s\S]*--settings[\s\S]*--bare/);
  });
});

describe("the run of a captured folder (@evals/core readRunFolder)", () => {
  it("builds a @evals/core Run with skipped lines and the hook's own errors as notes", async () => {
    const runDir = runWith([line(1, pre("a")), "oops", line(2, post("a"))], {
      "hook-errors.log": `${JSON.stringify({
        version: 1,
        time: "2026-01-01T00:00:00.000Z",
        run_id: "r",
        pid: 9,
        kind: "bad_input",
        message: "stdin was empty",
      })}\n`,
    });
    const run = await runIn(runDir, { onError: "skip" });
    expect(run.id).toBe("r");
    expect(run.sources).toEqual(["hooks"]);
    expect(listToolCalls(run).map((call) => [call.name, call.status])).toEqual([["Bash", "ok"]]);
    expect(run.notes.map((note) => note.kind)).toEqual(["parse_error", "other"]);
    expect(run.notes[1]?.message).toBe("capture hook bad_input: stdin was empty");
    expect(run.events[0]?.timestamp).toBe(new Date(1_800_000_000_001).toISOString());
  });

  it("keeps a run whose last line was cut off (the hook was killed mid-write), noting file and line", async () => {
    const runDir = runWith([line(1, pre("a")), line(2, post("a"))]);
    writeFileSync(
      join(runDir, "events.jsonl"),
      `${JSON.stringify(line(1, pre("a")))}\n${JSON.stringify(line(2, post("a")))}\n{"version":1,"capt`,
    );
    const run = await runIn(runDir);
    expect(listToolCalls(run).map((call) => [call.name, call.status])).toEqual([["Bash", "ok"]]);
    expect(run.notes.map((note) => note.message)).toEqual([
      expect.stringMatching(new RegExp(`^${join(runDir, "events.jsonl")}:3: the last line is cut off`)),
    ]);
  });

  it("marks a call denied only when its agent went on after the permission request", async () => {
    const request = (id: string) => ({
      hook_event_name: "PermissionRequest",
      tool_name: "Write",
      tool_input: { n: id },
    });
    const wentOn = await runIn(
      runWith([line(1, pre("w", "Write")), line(2, request("w")), line(3, { hook_event_name: "Stop" })]),
    );
    expect(listToolCalls(wentOn).map((call) => call.status)).toEqual(["denied"]);
    expect(wentOn.events.map((event) => event.type)).toEqual([
      "tool_call",
      "permission_request",
      "permission_denied",
    ]);
    expect(wentOn.events.map((event) => event.index)).toEqual([0, 1, 2]);

    const stoppedThere = await runIn(runWith([line(1, pre("w", "Write")), line(2, request("w"))]));
    expect(listToolCalls(stoppedThere).map((call) => call.status)).toEqual(["incomplete"]);

    const approved = await runIn(
      runWith([
        line(1, pre("w", "Write")),
        line(2, request("w")),
        line(3, post("w", "Write")),
        line(4, { hook_event_name: "Stop" }),
      ]),
    );
    expect(listToolCalls(approved).map((call) => call.status)).toEqual(["ok"]);

    // Another agent going on says nothing about this one.
    const sub = { agent_id: "child", agent_type: "Explore" };
    const otherAgent = await runIn(
      runWith([line(1, pre("w", "Write", sub)), line(2, { ...request("w"), ...sub }), line(3, pre("x"))]),
    );
    expect(listToolCalls(otherAgent).map((call) => [call.agent, call.status])).toEqual([
      ["child", "incomplete"],
      ["main", "incomplete"],
    ]);
  });
});

describe("getToolCalls / getToolSequence / readToolCallEntries", () => {
  it("find the run by id under the root, defaulting to EVALS_OUTPUT_DIR", async () => {
    const root = join(temp.dir, "root");
    const env = { TEST_RUN_ID: "by-id", EVALS_OUTPUT_DIR: root };
    for (const event of [
      pre("1"),
      post("1"),
      pre("2", "Read"),
      { ...post("2", "Read"), hook_event_name: "PostToolUseFailure", error: "nope" },
    ]) {
      expect(captureHookEvent({ ...common, ...event }, { env }).captured).toBe(true);
    }
    expect(await getToolSequence("by-id", { root })).toEqual(["Bash", "Read"]);
    vi.stubEnv("EVALS_OUTPUT_DIR", root);
    try {
      const calls = await getToolCalls("by-id");
      expect(calls.map((call) => [call.name, call.status, call.result?.error])).toEqual([
        ["Bash", "ok", undefined],
        ["Read", "error", "nope"],
      ]);
    } finally {
      vi.unstubAllEnvs();
    }
    const entries = await readToolCallEntries(runFolderPath("by-id", root));
    expect(entries.map((entry) => [entry.phase, entry.tool_name, entry.error])).toEqual([
      ["pre", "Bash", undefined],
      ["post", "Bash", undefined],
      ["pre", "Read", undefined],
      ["post", "Read", "nope"],
    ]);
    expect(await readHookErrors(runFolderPath("by-id", root))).toEqual([]);
  });

  it("refuse a test id that could escape the root", async () => {
    await expect(getToolCalls("../../etc", { root: temp.dir })).rejects.toThrow(/Invalid run id/);
    await expect(getToolSequence("/abs", { root: temp.dir })).rejects.toThrow(/Invalid run id/);
  });

  it("readToolCallEntries is empty for a run without tool calls", async () => {
    const runDir = runWith([line(1, { hook_event_name: "SessionStart" })]);
    expect(await readToolCallEntries(runDir)).toEqual([]);
  });
});

describe("events named like JavaScript prototype keys", () => {
  it("are captured and read back as unknown events, with no tool-call entry and no hook error", async () => {
    const root = join(temp.dir, "proto-root");
    const env = { TEST_RUN_ID: "proto", EVALS_OUTPUT_DIR: root };
    for (const event of [pre("1"), post("1")]) captureHookEvent({ ...common, ...event }, { env });
    for (const name of ["constructor", "toString", "__proto__"]) {
      const input = JSON.parse(`{"session_id":"s1","cwd":"/p","hook_event_name":${JSON.stringify(name)}}`);
      expect(captureHookEvent(input, { env })).toMatchObject({ captured: true, toolCallWritten: false });
    }
    const runDir = runFolderPath("proto", root);
    expect(await readHookErrors(runDir)).toEqual([]);
    expect((await readEvents(runDir)).map((line) => line.event.hook_event_name)).toEqual([
      "PreToolUse",
      "PostToolUse",
      "constructor",
      "toString",
      "__proto__",
    ]);
    expect(listToolCalls(await runIn(runDir)).map((call) => call.name)).toEqual(["Bash"]);
  });
});
