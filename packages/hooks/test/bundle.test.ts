import { copyFileSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { join } from "node:path";
import { runFolderPath } from "@evals/core";
import { afterAll, describe, expect, it } from "vitest";
import { readEvents } from "../src/index.js";
import { fixtureHookInputs } from "./fixtures.js";
import { hookBin, runHook, tempDir } from "./spawn-hook.js";

const temp = tempDir("bundle");
afterAll(temp.cleanup);

describe("the hook executable bundle", () => {
  const source = readFileSync(hookBin, "utf8");

  it("requires nothing but Node's built-in modules, and no zod", () => {
    const required = [...source.matchAll(/require\(["']([^"']+)["']\)/g)].map((match) => match[1] as string);
    expect(required.length).toBeGreaterThan(0);
    for (const name of required) expect(builtinModules, name).toContain(name.replace(/^node:/, ""));
    expect(source).not.toMatch(/zod|ZodError|safeParse/);
    expect(source).not.toMatch(/\bimport\(/);
  });

  it("is small, a script with a shebang, and executable", () => {
    expect(Buffer.byteLength(source)).toBeLessThan(40 * 1024);
    expect(source.startsWith("#!/usr/bin/env node\n")).toBe(true);
    expect(statSync(hookBin).mode & 0o111).not.toBe(0);
  });

  it("runs on its own, copied away from node_modules", async () => {
    const lone = join(temp.dir, "evals-hook.cjs");
    copyFileSync(hookBin, lone);
    const root = join(temp.dir, "out");
    const { spawnSync } = await import("node:child_process");
    const input = JSON.stringify(fixtureHookInputs("subagent")[2]);
    const result = spawnSync(process.execPath, [lone], {
      input,
      cwd: temp.dir,
      env: {
        PATH: process.env.PATH,
        TEST_MODE: "true",
        TEST_RUN_ID: "lone",
        EVALS_OUTPUT_DIR: root,
        NODE_PATH: "",
      },
    });
    expect(result.status).toBe(0);
    expect(result.stdout.toString()).toBe("");
    expect((await readEvents(runFolderPath("lone", root))).map((line) => line.event)).toEqual([
      JSON.parse(input),
    ]);
  });

  it("exits 0 at once without TEST_MODE, even when stdin never closes", async () => {
    const started = Date.now();
    const result = await runHook("{", { keepStdinOpen: true, env: {}, timeoutMs: 10_000 });
    expect(result).toEqual({ code: 0, signal: null, stdout: "", stderr: "" });
    expect(Date.now() - started).toBeLessThan(8_000);
  });
});
