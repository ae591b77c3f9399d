import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, test } from "vitest";
import { geminiEnvironment, prepareGeminiEnvironment } from "../src/gemini/environment.js";
import {
  FailureResultSchema,
  SessionDeleteResultSchema,
  SessionDiscoverResultSchema,
  SessionListResultSchema,
  SessionMigrateResultSchema,
  SessionTurnResultSchema,
} from "../src/results.js";
import { projectHash } from "../src/store/locations.js";
import { expectShape, fakeGeminiForFile, runScript, workspace } from "./helpers.js";

const gemini = fakeGeminiForFile();
const MODEL = ["--model", "gemini-2.5-pro"];

/**
 * A Gemini session made outside the plugin: the real Gemini CLI run by hand (`gemini -p`) in the
 * project, in the same hermetic home the scripts give it.
 */
async function geminiByHand(env: NodeJS.ProcessEnv, project: string, prompt: string): Promise<void> {
  const gem = geminiEnvironment(env.GEMINI_OFFLOADER_BASE!, env);
  prepareGeminiEnvironment(gem);
  await promisify(execFile)(env.GEMINI_BIN!, ["-p", prompt, "-m", "gemini-2.5-pro"], {
    cwd: project,
    env: gem.env,
    timeout: 120_000,
  });
}

async function list(env: NodeJS.ProcessEnv, project: string) {
  return expectShape(
    SessionListResultSchema,
    (await runScript("session", ["list"], { env, cwd: project })).json,
  );
}

/** Every file under a folder (empty when it does not exist). */
function filesUnder(folder: string): string[] {
  return existsSync(folder) ? readdirSync(folder, { recursive: true }).map(String).sort() : [];
}

describe("session: Gemini not installed", () => {
  test.concurrent.each([
    ["create", ["create", "--name", "n", "--prompt", "S-MISSING create"]],
    ["continue", ["continue", "--name", "n", "--prompt", "S-MISSING continue"]],
    ["delete", ["delete", "--index", "1"]],
  ])("%s: exit 1 at once, the install hint, nothing written", async (action, args) => {
    const { base, project } = workspace(`session-missing-${action}`);
    const env = gemini.env(base, { geminiBin: null, path: dirname(process.execPath) });
    const run = await runScript("session", args, { env, cwd: project, killAfterMs: 15_000 });
    expect(run.exitCode).toBe(1);
    expect(expectShape(FailureResultSchema, run.json)).toMatchObject({
      action,
      error: expect.stringContaining("Gemini CLI"),
      install_hint: expect.stringContaining("npm install -g @google/gemini-cli"),
    });
    expect(filesUnder(base)).toEqual([]);
    expect(filesUnder(project)).toEqual([]);
    expect(gemini.server.requestsFor(`S-MISSING ${action}`)).toHaveLength(0);
  });
});

describe.concurrent("session with the real Gemini CLI: timeout, delete by index, aliases", () => {
  test("continue --timeout: exit 124, the session and its name unchanged, the next turn works", async () => {
    const { base, project } = workspace("session-timeout");
    const env = gemini.env(base);
    const created = await runScript(
      "session",
      ["create", "--name", "slow", "--prompt", "S-TIMEOUT start", ...MODEL],
      { env, cwd: project },
    );
    expect(created.exitCode).toBe(0);
    const sessionsFile = join(base, "projects", projectHash(project), "sessions.json");
    const before = readFileSync(sessionsFile, "utf8");
    // Once: Gemini re-sends the unanswered prompt with the next turn's.
    gemini.server.addRule({ match: "S-TIMEOUT hangs", hang: true, times: 1 });

    const run = await runScript(
      "session",
      ["continue", "--name", "slow", "--prompt", "S-TIMEOUT hangs", "--timeout", "6", ...MODEL],
      { env, cwd: project },
    );
    expect(run.exitCode).toBe(124);
    const output = expectShape(SessionTurnResultSchema, run.json);
    expect(output).toMatchObject({ success: false, action: "continue", session: { name: "slow" } });
    expect(output.diagnostic).toMatchObject({ type: "timeout" });
    expect(output.error).toBe("timeout: Gemini did not answer within 6 s.");
    expect(readFileSync(sessionsFile, "utf8")).toBe(before);

    const next = await runScript(
      "session",
      ["continue", "-n", "slow", "-p", "S-TIMEOUT after", "-t", "60", ...MODEL],
      { env, cwd: project },
    );
    expect(next.exitCode).toBe(0);
    const turn = expectShape(SessionTurnResultSchema, next.json);
    expect(turn).toMatchObject({ success: true, session: { name: "slow" } });
    // The turns are counted from Gemini's own session file: the prompt that timed out is in it when the
    // CLI saved it before it was stopped (it does, or not, depending on how far it got in 6 s).
    expect([2, 3]).toContain(turn.session?.turns);
  });

  test("delete --index N (1 = oldest, as list shows): that session and its names go, the others stay", async () => {
    const { base, project } = workspace("session-delete-index");
    const env = gemini.env(base);
    for (const name of ["first", "second"]) {
      const made = await runScript(
        "session",
        ["create", "--name", name, "--prompt", `S-DELIDX ${name}`, ...MODEL],
        { env, cwd: project },
      );
      expect(made.exitCode).toBe(0);
    }
    const listed = await list(env, project);
    expect(listed.gemini_sessions.map((session) => session.names)).toEqual([["first"], ["second"]]);
    const [oldest, newest] = listed.gemini_sessions;

    const deleted = await runScript("session", ["delete", "--index", "1"], { env, cwd: project });
    expect(deleted.exitCode).toBe(0);
    expect(expectShape(SessionDeleteResultSchema, deleted.json)).toMatchObject({
      session_id: oldest!.session_id,
      deleted_from_gemini: true,
      removed_names: ["first"],
    });
    expect(existsSync(oldest!.file)).toBe(false);
    const after = await list(env, project);
    expect(after.named.map((session) => session.name)).toEqual(["second"]);
    expect(after.gemini_sessions).toEqual([
      expect.objectContaining({ index: 1, session_id: newest!.session_id, names: ["second"] }),
    ]);

    const beyond = await runScript("session", ["delete", "--index", "2"], { env, cwd: project });
    expect(beyond.exitCode).toBe(1);
    expect(beyond.json.error).toContain("there is no index 2");
  });

  test("-d is --include-dirs: the same cache entry either way", async () => {
    const { base, project } = workspace("alias-d");
    const env = gemini.env(base);
    writeFileSync(join(project, "notes.md"), "notes\n");
    const short = await runScript("query", ["-p", "ALIAS-D question", "-d", ".", ...MODEL], {
      env,
      cwd: project,
    });
    expect(short.json).toMatchObject({ success: true, cached: false });
    const long = await runScript("query", ["--prompt", "ALIAS-D question", "--include-dirs", ".", ...MODEL], {
      env,
      cwd: project,
    });
    expect(long.json).toMatchObject({ success: true, cached: true, cache_key: short.json.cache_key });
    expect(gemini.server.requestsFor("ALIAS-D question")).toHaveLength(1);
  });
});

describe.concurrent("session discover and migrate (Gemini sessions made outside the plugin)", () => {
  test("discover finds a session made with `gemini -p`; --adopt names it; then it is no longer unmapped", async () => {
    const { base, project } = workspace("discover");
    const env = gemini.env(base);
    const named = await runScript(
      "session",
      ["create", "--name", "mine", "--prompt", "S-DISCOVER plugin", ...MODEL],
      { env, cwd: project },
    );
    expect(named.exitCode).toBe(0);
    await geminiByHand(env, project, "S-DISCOVER by hand");

    const found = await runScript("session", ["discover"], { env, cwd: project });
    expect(found.exitCode).toBe(0);
    const discovery = expectShape(SessionDiscoverResultSchema, found.json);
    expect(discovery.total_gemini_sessions).toBe(2);
    expect(discovery.unmapped).toEqual([
      expect.objectContaining({
        index: 2,
        is_current_project: true,
        project_path: project,
        turns: 1,
        first_prompt: "S-DISCOVER by hand",
      }),
    ]);
    const sessionId = discovery.unmapped[0]!.session_id;

    const adopted = expectShape(
      SessionDiscoverResultSchema,
      (await runScript("session", ["discover", "--adopt"], { env, cwd: project })).json,
    );
    expect(adopted.adopted).toEqual([
      { name: `gemini-${sessionId.slice(0, 8)}`, session_id: sessionId, turns_saved: 1 },
    ]);
    // Its answer is saved as the plugin saves its own turns, so the memory can take it in.
    const indexed = await runScript("memory", ["index-offload"], { env, cwd: project });
    expect(indexed.json).toMatchObject({ success: true, indexed: 2 });
    const stored = await runScript("memory", ["search", "-q", "S-DISCOVER by hand"], { env, cwd: project });
    expect((stored.json.results as unknown[])[0]).toMatchObject({
      text: "Fake Gemini answer to: S-DISCOVER by hand",
      source: "session",
      session: `gemini-${sessionId.slice(0, 8)}`,
    });
    const after = await list(env, project);
    expect(after.named.find((session) => session.session_id === sessionId)).toMatchObject({
      health: "healthy",
      adopted: true,
      turns: 1,
    });
    const again = expectShape(
      SessionDiscoverResultSchema,
      (await runScript("session", ["discover", "--adopt"], { env, cwd: project })).json,
    );
    expect(again).toMatchObject({ unmapped: [], adopted: [] });

    // The adopted name is a real session: the next turn resumes it.
    const turn = await runScript(
      "session",
      ["continue", "--name", `gemini-${sessionId.slice(0, 8)}`, "--prompt", "S-DISCOVER next", ...MODEL],
      { env, cwd: project },
    );
    expect(turn.exitCode).toBe(0);
    expect(gemini.server.requestsFor("S-DISCOVER next")[0]!.texts).toContain("S-DISCOVER by hand");
  });

  test("discover --all-projects lists another folder's sessions (no index: adopt them there)", async () => {
    const { base, project } = workspace("discover-all");
    const other = join(dirname(project), "other");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(other);
    const env = gemini.env(base);
    await geminiByHand(env, other, "S-DISCOVER-ALL elsewhere");
    const here = expectShape(
      SessionDiscoverResultSchema,
      (await runScript("session", ["discover"], { env, cwd: project })).json,
    );
    expect(here.unmapped).toEqual([]);
    const everywhere = expectShape(
      SessionDiscoverResultSchema,
      (await runScript("session", ["discover", "--all-projects"], { env, cwd: project })).json,
    );
    expect(everywhere.unmapped).toEqual([
      expect.objectContaining({ index: null, project_path: other, is_current_project: false }),
    ]);
    const refused = await runScript("session", ["discover", "--all-projects", "--adopt"], {
      env,
      cwd: project,
    });
    expect(refused.exitCode).toBe(2);
  });

  test("migrate: the seed plugin's state file (version 0) and legacy index entries become mappings; idempotent", async () => {
    const { base, project } = workspace("migrate");
    const env = gemini.env(base);
    await geminiByHand(env, project, "S-MIGRATE oldest");
    await geminiByHand(env, project, "S-MIGRATE newest");
    const [oldest, newest] = (await list(env, project)).gemini_sessions;
    writeFileSync(
      join(project, ".gemini-offloader-sessions.json"),
      JSON.stringify({
        named_sessions: {
          "by-id": { sessionId: newest!.session_id, createdAt: "2026-01-02T00:00:00.000Z", lastTurn: 1 },
          "by-index": 0,
          vanished: { sessionId: "0000dead-0000-0000-0000-000000000000" },
        },
        last_used: null,
      }),
    );
    const dry = expectShape(
      SessionMigrateResultSchema,
      (await runScript("session", ["migrate", "--dry-run"], { env, cwd: project })).json,
    );
    expect(dry.migrated.map((entry) => entry.name)).toEqual(["by-id", "by-index"]);
    const sessionsFile = join(base, "projects", projectHash(project), "sessions.json");
    expect(existsSync(sessionsFile)).toBe(false);

    const run = await runScript("session", ["migrate"], { env, cwd: project });
    expect(run.exitCode).toBe(0);
    const migrated = expectShape(SessionMigrateResultSchema, run.json);
    expect(migrated).toMatchObject({
      dry_run: false,
      from: [{ format: "seed-session-state", version: 0, names: 3 }],
      to: { file: sessionsFile, format: "session-map", version: 1 },
      migrated: [
        { name: "by-id", session_id: newest!.session_id, from: "seed-mapping", turns: 1 },
        { name: "by-index", session_id: oldest!.session_id, from: "seed-index", turns: 1 },
      ],
      already_current: [],
      failed: [{ name: "vanished", reason: expect.stringContaining("no longer has session 0000dead") }],
    });
    const named = (await list(env, project)).named;
    expect(named.map((entry) => [entry.name, entry.health])).toEqual([
      ["by-id", "healthy"],
      ["by-index", "healthy"],
    ]);
    expect(named[0]!.created_at).toBe("2026-01-02T00:00:00.000Z");

    // Legacy entries of sessions.json (bare indexes, counted from 1 as `session list` shows unless
    // --legacy-base 0) are migrated too.
    const map = JSON.parse(readFileSync(sessionsFile, "utf8"));
    map.sessions.old = 2;
    map.sessions.older = 0;
    writeFileSync(sessionsFile, JSON.stringify(map));
    const legacy = expectShape(
      SessionMigrateResultSchema,
      (await runScript("session", ["migrate"], { env, cwd: project })).json,
    );
    expect(legacy.migrated).toEqual([
      { name: "old", session_id: newest!.session_id, from: "legacy-index", turns: 1 },
    ]);
    expect(legacy.already_current).toEqual(["by-id", "by-index"]);
    expect(legacy.failed).toEqual([
      expect.objectContaining({ name: "vanished" }),
      expect.objectContaining({
        name: "older",
        reason: expect.stringContaining("no Gemini session at index 0"),
      }),
    ]);
    const base0 = expectShape(
      SessionMigrateResultSchema,
      (await runScript("session", ["migrate", "--legacy-base", "0"], { env, cwd: project })).json,
    );
    expect(base0.migrated).toEqual([
      { name: "older", session_id: oldest!.session_id, from: "legacy-index", turns: 1 },
    ]);

    const again = expectShape(
      SessionMigrateResultSchema,
      (await runScript("session", ["migrate"], { env, cwd: project })).json,
    );
    expect(again.migrated).toEqual([]);
    expect(again.already_current).toEqual(["by-id", "by-index"]);
    expect(again.failed.map((entry) => entry.name)).toEqual(["vanished"]);
  });

  test("migrate: a damaged seed file is refused naming the file and field; works without Gemini installed", async () => {
    const { base, project } = workspace("migrate-damaged");
    const env = gemini.env(base, { geminiBin: null, path: dirname(process.execPath) });
    const file = join(project, ".gemini-offloader-sessions.json");
    writeFileSync(file, JSON.stringify({ named_sessions: { x: "three" } }));
    const run = await runScript("session", ["migrate"], { env, cwd: project });
    expect(run.exitCode).toBe(1);
    expect(run.json).toMatchObject({
      success: false,
      file,
      error: expect.stringContaining("field named_sessions.x"),
    });
    writeFileSync(file, JSON.stringify({ named_sessions: {} }));
    const empty = await runScript("session", ["migrate"], { env, cwd: project });
    expect(empty.exitCode).toBe(0);
    expect(expectShape(SessionMigrateResultSchema, empty.json)).toMatchObject({ migrated: [], failed: [] });
  });
});
