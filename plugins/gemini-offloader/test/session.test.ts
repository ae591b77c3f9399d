import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, test } from "vitest";
import {
  FailureResultSchema,
  SessionAdoptResultSchema,
  SessionDeleteResultSchema,
  SessionListResultSchema,
  SessionTurnResultSchema,
  UsageResultSchema,
} from "../src/results.js";
import { projectHash } from "../src/store/locations.js";
import { expectShape, fakeGeminiForFile, runScript, workspace } from "./helpers.js";

const gemini = fakeGeminiForFile();
const MODEL = ["--model", "gemini-2.5-pro"];

describe("session: arguments", () => {
  test.concurrent.each([
    [[], "Say what to do first"],
    [["rename"], 'Unknown action "rename"'],
    [["create", "--prompt", "x"], "--name is required"],
    [["create", "--name", "a b", "--prompt", "x"], "must be 1-64 letters"],
    [["create", "--name", "n"], "--prompt is required for create"],
    [["continue", "--index", "1", "--prompt", "x"], "continue does not take --index"],
    [["resume", "--prompt", "x"], "resume needs exactly one of --index or --session-id"],
    [["resume", "--prompt", "x", "--index", "0"], "--index counts from 1, as `session list` shows"],
    [["delete", "--index", "0"], "for the first session use --index 1"],
    [["resume", "--prompt", "x", "--index", "two"], "--index must be a whole number of 1 or more"],
    [["delete"], "delete needs exactly one of --name, --index or --session-id"],
    [["delete", "--name", "a", "--index", "1"], "delete needs exactly one"],
    [["adopt", "--index", "1"], "--name is required"],
  ])("%j is refused with exit 2", async (args, message) => {
    const { base, project } = workspace("session-args");
    const run = await runScript("session", args, { env: gemini.env(base), cwd: project });
    expect(run.exitCode).toBe(2);
    expect(expectShape(UsageResultSchema, run.json).error).toContain(message);
  });

  test("gemini missing: every action answers at once with exit 1 and the install hint", async () => {
    const { base, project } = workspace("session-missing");
    const env = gemini.env(base, { geminiBin: null, path: dirname(process.execPath) });
    const run = await runScript("session", ["list"], { env, cwd: project, killAfterMs: 15_000 });
    expect(run.exitCode).toBe(1);
    const output = expectShape(FailureResultSchema, run.json);
    expect(output).toMatchObject({
      action: "list",
      install_hint: expect.stringContaining("@google/gemini-cli"),
    });
  });
});

test("a damaged sessions.json: exit 1 naming the file and what is wrong, nothing overwritten", async () => {
  const { base, project } = workspace("session-damaged");
  const file = join(base, "projects", projectHash(project), "sessions.json");
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, '{"version": 1, "project_path": "/p", "sessions": {"x": {"session_id": 7}}}');
  const run = await runScript("session", ["list"], { env: gemini.env(base), cwd: project });
  expect(run.exitCode).toBe(1);
  expect(run.json).toMatchObject({
    success: false,
    file,
    error: expect.stringContaining(`${file}: field sessions.x`),
  });
  expect(readFileSync(file, "utf8")).toContain('"session_id": 7');
});

describe.concurrent("session with the real Gemini CLI", () => {
  test("create, continue by name (Gemini gets the history), a failed turn, delete", async () => {
    const { base, project } = workspace("session-life");
    const env = gemini.env(base);
    const created = await runScript(
      "session",
      ["create", "--name", "wasm", "--prompt", "S-LIFE first", ...MODEL],
      {
        env,
        cwd: project,
      },
    );
    expect(created.exitCode).toBe(0);
    const create = expectShape(SessionTurnResultSchema, created.json);
    expect(create).toMatchObject({
      success: true,
      action: "create",
      response: "Fake Gemini answer to: S-LIFE first",
      turn: 1,
      model: "gemini-2.5-pro",
    });
    const sessionId = create.session!.session_id as string;
    expect(create.session).toEqual({ name: "wasm", session_id: sessionId, health: "healthy", turns: 1 });
    expect(readFileSync(create.full_response_path!, "utf8")).toBe(create.response);

    const again = await runScript("session", ["create", "--name", "wasm", "--prompt", "S-LIFE dup"], {
      env,
      cwd: project,
    });
    expect(again.exitCode).toBe(1);
    expect(again.json.error).toContain('A session named "wasm" already exists');

    const continued = await runScript(
      "session",
      ["continue", "--name", "wasm", "--prompt", "S-LIFE second", ...MODEL],
      {
        env,
        cwd: project,
      },
    );
    expect(continued.exitCode).toBe(0);
    expect(expectShape(SessionTurnResultSchema, continued.json)).toMatchObject({
      action: "continue",
      turn: 2,
      session: { name: "wasm", session_id: sessionId, health: "healthy", turns: 2 },
    });
    // A real resume: Gemini re-sent the first turn with the second.
    const second = gemini.server.requestsFor("S-LIFE second")[0]!;
    expect(second.texts).toContain("S-LIFE first");

    gemini.server.addRule({ match: "S-LIFE third", status: 429 });
    const limited = await runScript(
      "session",
      ["continue", "--name", "wasm", "--prompt", "S-LIFE third", ...MODEL],
      {
        env,
        cwd: project,
      },
    );
    expect(limited.exitCode).toBe(75);
    const failed = expectShape(SessionTurnResultSchema, limited.json);
    expect(failed).toMatchObject({ success: false, session: { name: "wasm", session_id: sessionId } });
    expect(failed.diagnostic).toMatchObject({ type: "rate_limit", http_status: 429 });

    const listed = expectShape(
      SessionListResultSchema,
      (await runScript("session", ["list"], { env, cwd: project })).json,
    );
    expect(listed.named).toEqual([
      expect.objectContaining({ name: "wasm", session_id: sessionId, health: "healthy", turns: 2 }),
    ]);
    expect(listed.gemini_sessions).toEqual([
      expect.objectContaining({
        index: 1,
        session_id: sessionId,
        names: ["wasm"],
        first_prompt: "S-LIFE first",
      }),
    ]);
    const files = listed.gemini_sessions[0]!.file;

    const deleted = await runScript("session", ["delete", "--name", "wasm"], { env, cwd: project });
    expect(deleted.exitCode).toBe(0);
    const removal = expectShape(SessionDeleteResultSchema, deleted.json);
    expect(removal).toMatchObject({
      session_id: sessionId,
      deleted_from_gemini: true,
      removed_names: ["wasm"],
    });
    expect(removal.files_removed).toContain(files);
    expect(existsSync(files)).toBe(false);
    const after = expectShape(
      SessionListResultSchema,
      (await runScript("session", ["list"], { env, cwd: project })).json,
    );
    expect(after).toMatchObject({ named: [], gemini_sessions: [] });
    const gone = await runScript("session", ["continue", "--name", "wasm", "--prompt", "S-LIFE fourth"], {
      env,
      cwd: project,
    });
    expect(gone.exitCode).toBe(1);
    expect(gone.json.error).toContain('No session named "wasm"');
  });

  test("resume by index and by session id, continue the latest, adopt, and a legacy name", async () => {
    const { base, project } = workspace("session-resume");
    const env = gemini.env(base);
    // A session made outside the session script (a plain query is a Gemini session too).
    const query = await runScript("query", ["-p", "S-RESUME origin", ...MODEL], { env, cwd: project });
    const sessionId = query.json.session_id as string;

    const byIndex = await runScript(
      "session",
      ["resume", "--index", "1", "--name", "picked", "--prompt", "S-RESUME by index", ...MODEL],
      { env, cwd: project },
    );
    expect(byIndex.exitCode).toBe(0);
    expect(expectShape(SessionTurnResultSchema, byIndex.json)).toMatchObject({
      action: "resume",
      turn: 2,
      session: { name: "picked", session_id: sessionId, turns: 2 },
    });
    expect(gemini.server.requestsFor("S-RESUME by index")[0]!.texts).toContain("S-RESUME origin");

    const byId = await runScript(
      "session",
      ["resume", "--session-id", sessionId.slice(0, 8), "--prompt", "S-RESUME by id", ...MODEL],
      { env, cwd: project },
    );
    expect(byId.json).toMatchObject({
      success: true,
      turn: 3,
      session: { name: "picked", session_id: sessionId },
    });

    const latest = await runScript("session", ["continue", "--prompt", "S-RESUME latest", ...MODEL], {
      env,
      cwd: project,
    });
    expect(latest.json).toMatchObject({ success: true, turn: 4, session: { session_id: sessionId } });

    const missing = await runScript("session", ["resume", "--index", "5", "--prompt", "S-RESUME nowhere"], {
      env,
      cwd: project,
    });
    expect(missing.exitCode).toBe(1);
    expect(missing.json.diagnostic).toMatchObject({ type: "stale_session" });
    expect(missing.json.error).toContain("there is no index 5");

    // A legacy name (a bare index from the plugin's first versions) until adopt gives it an id.
    const sessionsFile = join(base, "projects", projectHashOf(query), "sessions.json");
    const map = JSON.parse(readFileSync(sessionsFile, "utf8"));
    map.sessions.old = 1;
    writeFileSync(sessionsFile, JSON.stringify(map));
    const withLegacy = expectShape(
      SessionListResultSchema,
      (await runScript("session", ["list"], { env, cwd: project })).json,
    );
    expect(withLegacy.named.find((s) => s.name === "old")).toMatchObject({
      health: "legacy",
      legacy_index: 1,
      session_id: null,
    });
    const legacyTurn = await runScript(
      "session",
      ["continue", "--name", "old", "--prompt", "S-RESUME legacy"],
      {
        env,
        cwd: project,
      },
    );
    expect(legacyTurn.exitCode).toBe(1);
    expect(legacyTurn.json.diagnostic).toMatchObject({ type: "stale_session" });
    expect(legacyTurn.json.error).toContain("session adopt --name old");

    const adopted = await runScript("session", ["adopt", "--name", "old", "--index", "1"], {
      env,
      cwd: project,
    });
    expect(adopted.exitCode).toBe(0);
    expect(expectShape(SessionAdoptResultSchema, adopted.json)).toMatchObject({
      session: { name: "old", session_id: sessionId, health: "healthy", turns: 4 },
      replaced_legacy: true,
    });
    const unknown = await runScript("session", ["adopt", "--name", "other", "--session-id", "0000"], {
      env,
      cwd: project,
    });
    expect(unknown.exitCode).toBe(1);
    expect(unknown.json.error).toContain("Gemini has no session 0000");
  });

  test("a name whose Gemini session is gone is stale: detected, refused without calling Gemini, deletable", async () => {
    const { base, project } = workspace("session-stale");
    const env = gemini.env(base);
    const created = await runScript(
      "session",
      ["create", "--name", "gone", "--prompt", "S-STALE start", ...MODEL],
      {
        env,
        cwd: project,
      },
    );
    expect(created.exitCode).toBe(0);
    const listed = expectShape(
      SessionListResultSchema,
      (await runScript("session", ["list"], { env, cwd: project })).json,
    );
    for (const file of listed.gemini_sessions.map((s) => s.file)) rmSync(file); // Gemini lost it (cleanup, another tool)

    const stale = expectShape(
      SessionListResultSchema,
      (await runScript("session", ["list"], { env, cwd: project })).json,
    );
    expect(stale.named).toEqual([expect.objectContaining({ name: "gone", health: "stale", turns: 1 })]);
    const refused = await runScript("session", ["continue", "--name", "gone", "--prompt", "S-STALE again"], {
      env,
      cwd: project,
    });
    expect(refused.exitCode).toBe(1);
    expect(expectShape(SessionTurnResultSchema, refused.json).diagnostic).toMatchObject({
      type: "stale_session",
    });
    expect(gemini.server.requestsFor("S-STALE again")).toHaveLength(0);

    const deleted = expectShape(
      SessionDeleteResultSchema,
      (await runScript("session", ["delete", "--name", "gone"], { env, cwd: project })).json,
    );
    expect(deleted).toMatchObject({ deleted_from_gemini: false, removed_names: ["gone"], files_removed: [] });
  });
});

/** The project hash is the folder of the cache entry the query wrote. */
function projectHashOf(query: { json: Record<string, unknown> }): string {
  return (query.json.full_response_path as string).split("/projects/")[1]!.split("/")[0]!;
}
