import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, test } from "vitest";
import {
  MemoryAddResultSchema,
  MemoryFilterResultSchema,
  MemorySearchResultSchema,
  UsageResultSchema,
} from "../src/results.js";
import { expectShape, fakeGeminiForFile, runScript, workspace } from "./helpers.js";

const gemini = fakeGeminiForFile();

/** Memory never needs Gemini: these runs have neither GEMINI_BIN nor gemini on PATH. */
function noGeminiEnv(base: string) {
  return gemini.env(base, { geminiBin: null, path: dirname(process.execPath) });
}

describe.concurrent("memory scopes: user, project, session", () => {
  test("add puts each memory in its scope; search spans all three or the ones asked for", async () => {
    const { base, project } = workspace("scopes");
    const other = join(dirname(project), "other");
    mkdirSync(other);
    const env = noGeminiEnv(base);
    const add = async (args: string[], cwd = project) => {
      const run = await runScript("memory", ["add", ...args], { env, cwd });
      expect(run.exitCode).toBe(0);
      return expectShape(MemoryAddResultSchema, run.json);
    };
    const user = await add(["-t", "Prefer Wasmtime for cold start everywhere", "--scope", "user"]);
    expect(user).toMatchObject({ scope: "user", memory: { project_hash: null, project_path: null } });
    const proj = await add(["--text", "This project measured Wasmtime cold start at 5 ms"]);
    expect(proj).toMatchObject({ scope: "project", memory: { project_path: project, session: null } });
    const sess = await add(["-t", "Wasmtime cold start in the edge session", "--session", "edge"]);
    expect(sess).toMatchObject({ scope: "session", memory: { session: "edge", project_path: project } });
    await add(["-t", "Another project's Wasmtime cold start note"], other);

    const search = async (args: string[], cwd = project) => {
      const run = await runScript("memory", ["search", "-q", "wasmtime cold start", ...args], { env, cwd });
      expect(run.exitCode).toBe(0);
      return expectShape(MemorySearchResultSchema, run.json);
    };
    const everything = await search([]);
    expect(everything.scopes).toEqual(["user", "project", "session"]);
    expect(everything.count).toBe(4);
    expect(new Set(everything.results.map((hit) => hit.scope))).toEqual(
      new Set(["user", "project", "session"]),
    );

    const userOnly = await search(["--scope", "user"]);
    expect(userOnly.results.map((hit) => hit.id)).toEqual([user.memory.id]);
    const projectOnly = await search(["--scope", "project"]);
    expect(projectOnly.results.map((hit) => hit.id)).toEqual([proj.memory.id]);
    const sessionOnly = await search(["--scope", "session", "--session", "edge"]);
    expect(sessionOnly.results.map((hit) => hit.id)).toEqual([sess.memory.id]);
    const mine = await search(["--scope", "user,project,session", "-l", "10"]);
    expect(mine.results.map((hit) => hit.id).sort()).toEqual(
      [user.memory.id, proj.memory.id, sess.memory.id].sort(),
    );
    // From the other folder, "project" means that folder's memories; the user scope follows everywhere.
    const elsewhere = await search(["--scope", "user,project"], other);
    expect(elsewhere.results.map((hit) => hit.scope).sort()).toEqual(["project", "user"]);
    expect(elsewhere.results.find((hit) => hit.scope === "project")!.project_path).toBe(other);

    const filtered = expectShape(
      MemoryFilterResultSchema,
      (await runScript("memory", ["filter", "--scope", "user"], { env, cwd: other })).json,
    );
    expect(filtered.memories.map((memory) => memory.id)).toEqual([user.memory.id]);
  });

  test.each([
    [["add", "-t", "x", "--scope", "team"], "--scope must be one of user, project, session"],
    [["add", "-t", "x", "--scope", "session"], "--scope session needs --session NAME"],
    [
      ["add", "-t", "x", "--scope", "user", "--session", "s"],
      "--session puts the memory in the session scope",
    ],
    [["search", "-q", "x", "--scope", "user,everyone"], "--scope must be user, project, session or all"],
  ])("%j is refused with exit 2", async (args, message) => {
    const { base, project } = workspace("scopes-args");
    const run = await runScript("memory", args, { env: noGeminiEnv(base), cwd: project });
    expect(run.exitCode).toBe(2);
    expect(expectShape(UsageResultSchema, run.json).error).toContain(message);
  });
});
