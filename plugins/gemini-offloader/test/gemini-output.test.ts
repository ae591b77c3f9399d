import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { diagnoseFailure, readErrorReport } from "../src/gemini/diagnose.js";
import { geminiProjectHash, listGeminiSessions, parseSessionFile } from "../src/gemini/session-files.js";
import { PLUGIN_ROOT, workspace } from "./helpers.js";

// Real stderr and session files of @google/gemini-cli 0.61.0 (see the fixtures' README).
const FIXTURES = join(PLUGIN_ROOT, "test", "__fixtures__", "gemini-0.61.0");
const fixture = (name: string) => readFileSync(join(FIXTURES, name), "utf8");
const exitOf = (name: string) => Number(fixture(`exit-${name}.txt`).trim());

describe("diagnosing Gemini's failures from its real stderr", () => {
  test.each([
    ["429", "rate_limit", 429, "fake Gemini error 429"],
    ["401", "auth", 401, "fake error 401"],
    ["403", "auth", 403, "fake error 403"],
    ["500", "unknown", 500, "fake error 500"],
    ["no-key", "auth", null, "you must specify the GEMINI_API_KEY"],
    ["untrusted", "untrusted_workspace", null, "not running in a trusted directory"],
    ["bad-resume", "stale_session", null, "Invalid session identifier"],
  ])("%s → %s", (name, type, httpStatus, message) => {
    const diagnostic = diagnoseFailure(exitOf(name), fixture(`stderr-${name}.txt`));
    expect(diagnostic.type).toBe(type);
    expect(diagnostic.http_status).toBe(httpStatus);
    expect(diagnostic.message).toContain(message);
    expect(diagnostic.gemini_exit_code).toBe(exitOf(name));
  });

  test("the API's JSON error body inside the report's message is unwrapped", () => {
    const report = readErrorReport(fixture("stderr-403.txt"));
    expect(report).toEqual({
      sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      message: "fake error 403",
      code: 403,
      status: "PERMISSION_DENIED",
    });
  });

  test("stderr without a report: the last meaningful line, not a stack frame", () => {
    const diagnostic = diagnoseFailure(
      3,
      "Warning: 256-color support not detected.\nboom: disk full\n    at main (x.js:1:1)\n",
    );
    expect(diagnostic).toMatchObject({ type: "unknown", message: "boom: disk full", gemini_exit_code: 3 });
  });
});

describe("reading Gemini's session files", () => {
  test("a resumed session: every turn, setup message left out", () => {
    const session = parseSessionFile(join(FIXTURES, "session-resumed.jsonl"))!;
    expect(session.sessionId).toBe("ac0e7df9-3d51-4c4f-8eea-e08fee5e7c41");
    expect(session.kind).toBe("main");
    expect(session.messages.map((m) => [m.type, m.text])).toEqual([
      ["user", "hi there"],
      ["gemini", "Hello from fake gemini."],
      ["user", "follow up"],
      ["gemini", "Hello from fake gemini."],
    ]);
  });

  test("a failed turn is rewound by Gemini's $set of messages: no turns left", () => {
    const session = parseSessionFile(join(FIXTURES, "session-failed-turn.jsonl"))!;
    expect(session.messages).toEqual([]);
  });

  test("a session split over a file and a resume stub is one session, read from the longer file", () => {
    const { base } = workspace("chats");
    const projectRoot = "/tmp/gexp/proj"; // the folder the fixtures were recorded in
    const dotGemini = join(base, ".gemini");
    const chats = join(dotGemini, "tmp", "proj", "chats");
    mkdirSync(chats, { recursive: true });
    writeFileSync(join(dotGemini, "projects.json"), JSON.stringify({ projects: { [projectRoot]: "proj" } }));
    cpSync(join(FIXTURES, "session-resumed.jsonl"), join(chats, "session-2026-11-22T00-26-ac0e7df9.jsonl"));
    cpSync(
      join(FIXTURES, "session-resumed-stub.jsonl"),
      join(chats, "session-2026-11-22T00-28-ac0e7df9.jsonl"),
    );
    cpSync(
      join(FIXTURES, "session-failed-turn.jsonl"),
      join(chats, "session-2026-11-22T00-27-1d608e2c.jsonl"),
    );
    writeFileSync(join(chats, "session-broken.jsonl"), "not json\n");

    const sessions = listGeminiSessions(dotGemini, projectRoot);
    expect(sessions.map((s) => [s.sessionId, s.turns, s.files.length])).toEqual([
      ["ac0e7df9-3d51-4c4f-8eea-e08fee5e7c41", 2, 2],
      ["1d608e2c-8cb7-4fc3-aa93-b73ee5469f78", 0, 1],
    ]);
    expect(sessions[0]!.file).toBe(join(chats, "session-2026-11-22T00-26-ac0e7df9.jsonl"));
    expect(sessions[0]).toMatchObject({ firstPrompt: "hi there", lastPrompt: "follow up" });
    // Another folder's sessions are not this project's.
    expect(listGeminiSessions(dotGemini, "/somewhere/else")).toEqual([]);
    expect(geminiProjectHash(projectRoot)).toBe(
      "f1cd4722705e0bf863f113eb1980f9d4fd4ac33756f14e785963ada910af4170",
    );
  });
});
