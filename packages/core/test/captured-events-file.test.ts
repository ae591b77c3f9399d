import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  type BadCapturedInput,
  depthMarker,
  JsonlLineError,
  limitDepth,
  readCapturedEvents,
} from "../src/index.js";

const dir = mkdtempSync(join(tmpdir(), "evals-core-captured-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const file = (lines: string[]) => {
  const path = join(dir, `events-${++files}.jsonl`);
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
};
const input = (name: string, extra = "") =>
  `{"session_id":"s","cwd":"/p","hook_event_name":"${name}"${extra}}`;
const raw = (seq: number, event: string) =>
  `{"version":2,"captured_at":"2026-01-01T00:00:00.000Z","run_id":"r","seq":${seq},"pid":7,"event":${event}}`;
const v1 = (seq: number, event: string) =>
  `{"version":1,"captured_at":"2026-01-01T00:00:00.000Z","run_id":"r","seq":${seq},"pid":8,"event":${event}}`;

describe("readCapturedEvents", () => {
  it("reads both forms together, in seq order", async () => {
    const events = await readCapturedEvents(
      file([
        raw(3, input("Stop")),
        v1(1, input("UserPromptSubmit", ',"prompt":"hi"')),
        raw(2, input("PreToolUse", ',"tool_name":"Bash","tool_input":{}')),
      ]),
    );
    expect(events.map((line) => [line.version, line.event.hook_event_name])).toEqual([
      [1, "UserPromptSubmit"],
      [2, "PreToolUse"],
      [2, "Stop"],
    ]);
  });

  it("turns a raw line whose input was not a hook input into a bad input, never an event", async () => {
    const bad: BadCapturedInput[] = [];
    const events = await readCapturedEvents(
      file([
        raw(1, '{"hook_event_name":"Stop", oops}'),
        raw(2, '{"no_event_name":1}'),
        // An input that closes the event early and brings its own envelope fields.
        raw(3, `{"a":1},"run_id":"other","event":${input("Stop")}`),
        raw(4, input("Stop")),
      ]),
      { onBadInput: (problem) => bad.push(problem) },
    );
    expect(events.map((line) => line.seq)).toEqual([4]);
    expect(bad.map((problem) => [problem.line, problem.run_id, problem.pid])).toEqual([
      [1, "r", 7],
      [2, "r", 7],
      [3, "r", 7],
    ]);
    expect(bad[0]?.message).toMatch(/not JSON/);
    expect(bad[0]?.input_head).toBe('{"hook_event_name":"Stop", oops}}');
  });

  it("still throws (or skips) a line that is not a captured event at all", async () => {
    const path = file([raw(1, input("Stop")), "{torn"]);
    await expect(readCapturedEvents(path)).rejects.toThrow(JsonlLineError);
    const skipped: JsonlLineError[] = [];
    const events = await readCapturedEvents(path, {
      onError: "skip",
      onBadLine: (error) => skipped.push(error),
    });
    expect(events).toHaveLength(1);
    expect(skipped.map((error) => error.line)).toEqual([2]);
  });

  it("cuts nesting deeper than 256 levels, at any depth, and marks it", async () => {
    const deep = `${"[".repeat(50_000)}1${"]".repeat(50_000)}`;
    const [line] = await readCapturedEvents(
      file([raw(1, input("PreToolUse", `,"tool_name":"X","tool_input":{"deep":${deep}}`))]),
    );
    expect(line?.truncated).toEqual([expect.stringMatching(/^event\.tool_input\.deep\[0\]/)]);
    expect(JSON.stringify(line)).toContain(depthMarker(256));
  });
});

describe("limitDepth", () => {
  it("leaves shallow values alone and cuts each too-deep branch once", () => {
    const value = { a: { b: [1, { c: 2 }] }, d: [[[]]] };
    expect(limitDepth(value, 10)).toEqual([]);
    expect(limitDepth(value, 2, "x")).toEqual(["x.d[0]", "x.a.b"]);
    expect(value).toEqual({ a: { b: depthMarker(2) }, d: [depthMarker(2)] });
  });
});
