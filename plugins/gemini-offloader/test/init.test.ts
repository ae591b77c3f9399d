import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, test } from "vitest";
import { InitResultSchema, SessionListResultSchema, UsageResultSchema } from "../src/results.js";
import { projectHash } from "../src/store/locations.js";
import { expectShape, fakeGeminiForFile, runScript, workspace } from "./helpers.js";

const gemini = fakeGeminiForFile();

async function init(args: string[], env: NodeJS.ProcessEnv, cwd: string) {
  const run = await runScript("init", args, { env, cwd });
  return { exitCode: run.exitCode, output: expectShape(InitResultSchema, run.json) };
}

const checkOf = (output: { checks: Array<{ name: string; ok: boolean; detail: string }> }, name: string) =>
  output.checks.find((check) => check.name === name);

describe.concurrent("init", () => {
  test("sets the project up: writes what is missing, then a second run writes nothing", async () => {
    const { base, project } = workspace("init");
    const env = gemini.env(base);
    const first = await init([], env, project);
    expect(first.exitCode).toBe(0);
    const hash = projectHash(project);
    expect(first.output).toMatchObject({
      success: true,
      action: "init",
      ready: true,
      base,
      project: { path: project, hash },
      existing: [],
      next_steps: [],
      error: null,
    });
    expect(first.output.checks.every((check) => check.ok)).toBe(true);
    expect(first.output.created).toEqual([
      join(base, "config.json"),
      join(base, "projects", hash, "project.json"),
      join(base, "memory", "memories.json"),
      join(base, "memory", "index.json"),
      join(base, "gemini-home", ".gemini", "settings.json"),
    ]);
    for (const file of first.output.created) expect(existsSync(file)).toBe(true);
    expect(JSON.parse(readFileSync(join(base, "memory", "memories.json"), "utf8"))).toEqual({
      version: 1,
      revision: 0,
      memories: [],
    });
    const config = readFileSync(join(base, "config.json"), "utf8");

    const second = await init(["--check"], env, project);
    expect(second.output).toMatchObject({ action: "check", created: [], existing: [] });
    const third = await init([], env, project);
    expect(third.output.created).toEqual([]);
    expect(third.output.existing).toEqual(first.output.created);
    expect(readFileSync(join(base, "config.json"), "utf8")).toBe(config);
    // init never runs Gemini (Gemini files every folder it runs in, in projects.json), and the
    // project folder is left alone.
    expect(existsSync(join(base, "gemini-home", ".gemini", "projects.json"))).toBe(false);
    expect(readdirSync(project)).toEqual([]);
  });

  test("-c (--check) writes nothing; Gemini missing: exit 1, the install hint, still no files", async () => {
    const { base, project } = workspace("init-missing");
    const env = gemini.env(base, { geminiBin: null, path: dirname(process.execPath) });
    const { exitCode, output } = await init(["-c"], env, project);
    expect(exitCode).toBe(1);
    expect(output).toMatchObject({ success: false, action: "check", ready: false, created: [] });
    expect(checkOf(output, "gemini_installed")).toMatchObject({ ok: false });
    expect(output.install_hint).toContain("npm install -g @google/gemini-cli");
    expect(output.error).toContain("gemini_installed");
    expect(readdirSync(base)).toEqual([]);
  });

  test("no credentials: set up, not ready, says how to sign in", async () => {
    const { base, project } = workspace("init-nokey");
    const { exitCode, output } = await init([], gemini.env(base, { apiKey: null }), project);
    expect(exitCode).toBe(0);
    expect(output).toMatchObject({ success: true, ready: false });
    expect(checkOf(output, "gemini_credentials")).toMatchObject({ ok: false });
    expect(output.next_steps).toEqual([expect.stringContaining("GEMINI_API_KEY")]);
  });

  test("a damaged file: exit 1 naming it and its field, nothing written; the seed's state and unnamed sessions are pointed out", async () => {
    const { base, project } = workspace("init-damaged");
    const env = gemini.env(base);
    const sessionsFile = join(base, "projects", projectHash(project), "sessions.json");
    mkdirSync(dirname(sessionsFile), { recursive: true });
    writeFileSync(sessionsFile, '{"version": 1, "project_path": "/p", "sessions": {"x": "y"}}');
    const damaged = await init([], env, project);
    expect(damaged.exitCode).toBe(1);
    expect(checkOf(damaged.output, "files_valid")!.detail).toContain(`${sessionsFile}: field sessions.x`);
    expect(damaged.output.created).toEqual([]);
    expect(existsSync(join(base, "config.json"))).toBe(false);

    writeFileSync(sessionsFile, JSON.stringify({ version: 1, project_path: project, sessions: {} }));
    const query = await runScript("query", ["-p", "INIT unnamed", "-m", "gemini-2.5-pro"], {
      env,
      cwd: project,
    });
    expect(query.exitCode).toBe(0);
    writeFileSync(
      join(project, ".gemini-offloader-sessions.json"),
      JSON.stringify({ named_sessions: { old: 0 } }),
    );
    const pointed = await init([], env, project);
    expect(pointed.exitCode).toBe(0);
    expect(checkOf(pointed.output, "gemini_sessions_named")).toMatchObject({ ok: false });
    expect(checkOf(pointed.output, "seed_state_migrated")).toMatchObject({ ok: false });
    expect(pointed.output.next_steps).toEqual([
      expect.stringContaining("session.js migrate"),
      expect.stringContaining("session.js discover"),
    ]);
    await runScript("session", ["migrate"], { env, cwd: project });
    const migrated = await init(["--check"], env, project);
    expect(checkOf(migrated.output, "seed_state_migrated")).toMatchObject({ ok: true });
    expect(checkOf(migrated.output, "gemini_sessions_named")).toMatchObject({ ok: true });
    const listed = expectShape(
      SessionListResultSchema,
      (await runScript("session", ["list"], { env, cwd: project })).json,
    );
    expect(listed.named.map((entry) => entry.name)).toEqual(["old"]);
  });

  test("bad arguments: exit 2 with the usage", async () => {
    const { base, project } = workspace("init-args");
    const run = await runScript("init", ["--force"], { env: gemini.env(base), cwd: project });
    expect(run.exitCode).toBe(2);
    expect(expectShape(UsageResultSchema, run.json).usage).toContain("node dist/init.js");
  });
});
