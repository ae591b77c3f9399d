import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, test } from "vitest";
import { geminiProjectHash } from "../src/gemini/session-files.js";
import { type LauncherResult, LauncherResultSchema, StatusResultSchema } from "../src/results.js";
import { DIST, expectShape, fakeGeminiForFile, PLUGIN_ROOT, runScript, workspace } from "./helpers.js";

const gemini = fakeGeminiForFile();
const FIXTURES = join(PLUGIN_ROOT, "test", "__fixtures__", "gemini-0.61.0");

/**
 * Puts a real Gemini session file (the resumed-session fixture) into the hermetic Gemini home, as
 * Gemini would have filed it for `project`. Returns the file.
 */
function plantGeminiSession(base: string, project: string): string {
  const dotGemini = join(base, "gemini-home", ".gemini");
  const chats = join(dotGemini, "tmp", "project", "chats");
  mkdirSync(chats, { recursive: true });
  writeFileSync(join(dotGemini, "projects.json"), JSON.stringify({ projects: { [project]: "project" } }));
  const text = readFileSync(join(FIXTURES, "session-resumed.jsonl"), "utf8").replace(
    /"projectHash":"[0-9a-f]+"/,
    `"projectHash":"${geminiProjectHash(project)}"`,
  );
  const file = join(chats, "session-2026-11-22T00-26-ac0e7df9.jsonl");
  writeFileSync(file, text);
  return file;
}

async function launcher(
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<{ exitCode: number | null; output: LauncherResult }> {
  const run = await runScript("launcher", [], { env, cwd });
  return { exitCode: run.exitCode, output: expectShape(LauncherResultSchema, run.json) };
}

const availability = (output: LauncherResult) =>
  Object.fromEntries(output.operations.map((operation) => [operation.id, operation.available]));

describe.concurrent("launcher", () => {
  test("every operation carries its label, description and command; the suggestion names one of them", async () => {
    const { base, project } = workspace("launch-labels");
    const { exitCode, output } = await launcher(gemini.env(base), project);
    expect(exitCode).toBe(0);
    expect(output.operations.map((operation) => [operation.id, operation.label])).toEqual([
      ["research", "Research a topic"],
      ["sessions", "Multi-turn research sessions"],
      ["search", "Search past research"],
      ["memory", "Store or manage memories"],
      ["status", "Check Gemini and the plugin"],
      ["sync", "Maintain the cache and index"],
    ]);
    for (const operation of output.operations) {
      expect(operation.description.length, operation.id).toBeGreaterThan(20);
      expect(operation.command, operation.id).toMatch(
        /^node \S+\/dist\/(query|session|memory|status|sync)\.js/,
      );
    }
    const suggested = output.operations.find((operation) => operation.id === output.suggestion.operation);
    expect(suggested).toBeDefined();
    expect(output.suggestion.command).toBe(suggested!.command);
  });

  test("Gemini not installed: exit 1, nothing that needs Gemini is available, suggestion: status", async () => {
    const { base, project } = workspace("launch-missing");
    const env = gemini.env(base, { geminiBin: null, path: dirname(process.execPath) });
    const { exitCode, output } = await launcher(env, project);
    expect(exitCode).toBe(1);
    expect(output).toMatchObject({ success: false, installed: false, ready: false, gemini_path: null });
    expect(output.install_hint).toContain("npm install -g @google/gemini-cli");
    expect(availability(output)).toEqual({
      research: false,
      sessions: false,
      search: false,
      memory: true,
      status: true,
      sync: true,
    });
    expect(output.operations.find((o) => o.id === "research")!.reason).toBe(
      "The Gemini CLI is not installed.",
    );
    expect(output.suggestion).toMatchObject({
      operation: "status",
      reason: expect.stringContaining("not installed"),
    });
  });

  test("installed without credentials: not ready, suggestion: status (sign in)", async () => {
    const { base, project } = workspace("launch-noauth");
    const { exitCode, output } = await launcher(gemini.env(base, { apiKey: null }), project);
    expect(exitCode).toBe(0);
    expect(output).toMatchObject({ installed: true, authenticated: false, auth_method: null, ready: false });
    expect(output.operations.find((o) => o.id === "sessions")).toMatchObject({
      available: false,
      reason: expect.stringContaining("no credentials"),
    });
    expect(output.suggestion).toMatchObject({
      operation: "status",
      reason: expect.stringContaining("sign in"),
    });
  });

  test("a saved Google login counts as credentials", async () => {
    const { base, project } = workspace("launch-oauth");
    mkdirSync(join(base, "gemini-home", ".gemini"), { recursive: true });
    writeFileSync(
      join(base, "gemini-home", ".gemini", "oauth_creds.json"),
      JSON.stringify({ refresh_token: "r" }),
    );
    const { output } = await launcher(gemini.env(base, { apiKey: null }), project);
    expect(output).toMatchObject({ authenticated: true, auth_method: "oauth", ready: true });
  });

  test("ready and empty: research suggested, search unavailable until something is stored", async () => {
    const { base, project } = workspace("launch-fresh");
    const env = gemini.env(base);
    const fresh = await launcher(env, project);
    expect(fresh.exitCode).toBe(0);
    expect(fresh.output).toMatchObject({
      success: true,
      ready: true,
      auth_method: "api_key",
      hermetic: true,
      state_initialized: false,
      base,
      project: { path: project, cache_entries: 0, named_sessions: [], gemini_sessions: 0 },
      global: { total_projects: 0, total_cache_entries: 0, total_named_sessions: 0, memories: 0 },
      suggestion: { operation: "research" },
    });
    expect(availability(fresh.output)).toEqual({
      research: true,
      sessions: true,
      search: false,
      memory: true,
      status: true,
      sync: true,
    });
    // Every operation's command names a script that exists.
    for (const operation of fresh.output.operations) {
      const script = /node (\S+\.js)/.exec(operation.command)![1]!;
      expect(script.startsWith(DIST)).toBe(true);
      expect(existsSync(script)).toBe(true);
    }
    expect(fresh.output.suggestion.command).toContain(join(DIST, "query.js"));

    await runScript("memory", ["add", "--text", "a finding"], { env, cwd: project });
    const stored = await launcher(env, project);
    expect(stored.output).toMatchObject({ state_initialized: true, global: { memories: 1 } });
    expect(availability(stored.output).search).toBe(true);
  });

  test("named sessions: healthy → continue it; stale → sync prune; legacy only → adopt", async () => {
    const { base, project } = workspace("launch-sessions");
    const env = gemini.env(base);
    const file = plantGeminiSession(base, project);
    const adopted = await runScript("session", ["adopt", "--name", "wasm", "--index", "1"], {
      env,
      cwd: project,
    });
    expect(adopted.exitCode).toBe(0);

    const healthy = await launcher(env, project);
    expect(healthy.output.project.named_sessions).toEqual([
      expect.objectContaining({ name: "wasm", health: "healthy", turns: 2 }),
    ]);
    expect(healthy.output.suggestion).toMatchObject({
      operation: "sessions",
      reason: expect.stringContaining('"wasm"'),
      command: `node ${join(DIST, "session.js")} continue --name wasm --prompt "..."`,
    });
    expect(healthy.output.operations.find((o) => o.id === "sessions")!.description).toBe(
      "1 named session(s): 1 healthy.",
    );

    rmSync(file);
    const stale = await launcher(env, project);
    expect(stale.output.project.named_sessions[0]).toMatchObject({ name: "wasm", health: "stale" });
    expect(stale.output.suggestion).toMatchObject({
      operation: "sync",
      command: `node ${join(DIST, "sync.js")} prune`,
    });

    const sessionsFile = join(base, "projects", healthy.output.project.hash, "sessions.json");
    writeFileSync(sessionsFile, JSON.stringify({ version: 1, project_path: project, sessions: { old: 3 } }));
    const legacy = await launcher(env, project);
    expect(legacy.output.project.named_sessions).toEqual([
      expect.objectContaining({ name: "old", health: "legacy", legacy_index: 3 }),
    ]);
    expect(legacy.output.suggestion).toMatchObject({
      operation: "sessions",
      command: expect.stringContaining("adopt --name old"),
    });
  });
});

describe.concurrent("status", () => {
  test("reports the real Gemini's version, credentials, the project and the memory", async () => {
    const { base, project } = workspace("status");
    const env = gemini.env(base);
    plantGeminiSession(base, project);
    await runScript("session", ["adopt", "--name", "kept", "--index", "1"], { env, cwd: project });
    const run = await runScript("status", [], { env, cwd: project });
    expect(run.exitCode).toBe(0);
    expect(expectShape(StatusResultSchema, run.json)).toMatchObject({
      success: true,
      installed: true,
      gemini: { version: "0.61.0" },
      authenticated: true,
      ready: true,
      hermetic: true,
      gemini_home: join(base, "gemini-home"),
      base: { path: base, initialized: true },
      project: { path: project, named_sessions: { healthy: 1, stale: 0, legacy: 0 }, gemini_sessions: 1 },
      memory: { memories: 0, index_in_sync: true },
      default_timeout_seconds: 90,
      error: null,
    });
    const settings = JSON.parse(readFileSync(join(base, "gemini-home", ".gemini", "settings.json"), "utf8"));
    expect(settings).toMatchObject({
      privacy: { usageStatisticsEnabled: false },
      general: { sessionRetention: { enabled: false }, maxAttempts: 1 },
      security: { auth: { selectedType: "gemini-api-key" } },
    });
  });

  test("Gemini missing: exit 1 with the install hint", async () => {
    const { base, project } = workspace("status-missing");
    const env = gemini.env(base, {
      geminiBin: null,
      path: dirname(process.execPath),
      extra: { GEMINI_OFFLOADER_TIMEOUT: "300" },
    });
    const run = await runScript("status", [], { env, cwd: project, killAfterMs: 15_000 });
    expect(run.exitCode).toBe(1);
    expect(expectShape(StatusResultSchema, run.json)).toMatchObject({
      success: false,
      installed: false,
      ready: false,
      gemini: { path: null, version: null },
      install_hint: expect.stringContaining("GEMINI_BIN"),
      default_timeout_seconds: 300,
    });
  });
});
