import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const fixtures = fileURLToPath(new URL("../../../fixtures/claude-code-2.1.330/", import.meta.url));

/** An environment with no API keys, proxies or tracing switches. */
function bareEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/API_KEY|TOKEN|PROXY|LANGSMITH|LANGCHAIN|OPENAI|ANTHROPIC/i.test(key)) continue;
    env[key] = value;
  }
  return { ...env, FORCE_COLOR: "0" };
}

/** Whether this machine lets us cut a child off the network (a fresh network namespace). */
const canIsolate = spawnSync("unshare", ["-rn", "true"], { timeout: 10_000 }).status === 0;

function runNode(script: string, isolate: boolean, nodeOptions: string[] = []) {
  const node = [...nodeOptions, "--input-type=module", "-e", script];
  const command = isolate ? "unshare" : process.execPath;
  const args = isolate ? ["-rn", process.execPath, ...node] : node;
  return spawnSync(command, args, { env: bareEnv(), encoding: "utf8", timeout: 60_000 });
}

const temp = mkdtempSync(join(tmpdir(), "evals-offline-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe("agentevals offline", () => {
  it("is not loaded by importing the package (the rule evaluators stay light)", () => {
    const script = `
      import { createRequire } from "node:module";
      const require = createRequire(import.meta.url);
      const evaluators = require(${JSON.stringify(`${dist}index.cjs`)});
      const loaded = Object.keys(require.cache).filter((file) => /agentevals|@langchain|langsmith|openevals/.test(file));
      console.log(JSON.stringify({ loaded, exports: typeof evaluators.approvalGate }));
    `;
    const child = runNode(script, false);
    expect(child.stderr).toBe("");
    expect(JSON.parse(child.stdout)).toEqual({ loaded: [], exports: "function" });
  });

  it(`matches trajectories with no API key${canIsolate ? " and no network" : ""}, from ESM and CJS`, () => {
    const script = `
      import { readFileSync } from "node:fs";
      import { createRequire } from "node:module";
      import { parseJsonl, runFromStreamJson } from "@evals/core";
      const esm = await import(${JSON.stringify(`${dist}index.js`)});
      const cjs = createRequire(import.meta.url)(${JSON.stringify(`${dist}index.cjs`)});
      const file = ${JSON.stringify(`${fixtures}multi-tool/stream.jsonl`)};
      const run = runFromStreamJson(parseJsonl(readFileSync(file, "utf8"), file));
      const verdicts = [];
      for (const api of [esm, cjs]) {
        for (const expected of [["Bash", "Read", "Read"], ["Grep"]]) {
          const result = await api.trajectoryMatch(run, { expected, engine: "agentevals" });
          verdicts.push(result.passed);
        }
      }
      console.log(JSON.stringify(verdicts));
    `;
    const child = runNode(script, canIsolate);
    expect(child.status, child.stderr).toBe(0);
    expect(JSON.parse(child.stdout.trim().split("\n").pop() as string)).toEqual([true, false, true, false]);
  });

  /** Node's --import options that register a module hook resolving "agentevals" with `resolveBody`. */
  function hookOptions(name: string, resolveBody: string): string[] {
    const hook = join(temp, `${name}.mjs`);
    writeFileSync(
      hook,
      `export async function resolve(specifier, context, next) {
        if (specifier === "agentevals") { ${resolveBody} }
        return next(specifier, context);
      }`,
    );
    const register = join(temp, `register-${name}.mjs`);
    writeFileSync(
      register,
      `import { register } from "node:module"; register(${JSON.stringify(pathToFileURL(hook).href)});`,
    );
    return ["--import", pathToFileURL(register).href];
  }

  /** Two trajectory verdicts on a real run (one passing, one failing) with `options`, as JSON. */
  function matchScript(options: string): string {
    return `
      import { readFileSync } from "node:fs";
      import { parseJsonl, runFromStreamJson } from "@evals/core";
      const { trajectoryMatch } = await import(${JSON.stringify(`${dist}index.js`)});
      const file = ${JSON.stringify(`${fixtures}multi-tool/stream.jsonl`)};
      const run = runFromStreamJson(parseJsonl(readFileSync(file, "utf8"), file));
      const good = await trajectoryMatch(run, { expected: ["Bash", "Read", "Read"], ${options} });
      const bad = await trajectoryMatch(run, { expected: ["Grep"], ${options} });
      console.log(JSON.stringify({ good: good.passed, bad: bad.passed, engine: good.metadata.engine, notes: good.violations.map((v) => [v.type, v.severity, v.message]) }));
    `;
  }

  it("falls back to the builtin matcher, and says so, when agentevals cannot be imported", () => {
    // A module hook that makes `import("agentevals")` fail, as a broken install would.
    const broken = hookOptions("break-agentevals", `throw new Error("simulated broken install");`);
    const child = runNode(matchScript(""), false, broken);
    expect(child.status, child.stderr).toBe(0);
    const report = JSON.parse(child.stdout.trim().split("\n").pop() as string);
    expect(report).toMatchObject({ good: true, bad: false, engine: "builtin" });
    expect(report.notes).toEqual([
      ["agentevals-unavailable", "info", expect.stringContaining("simulated broken install")],
    ]);
  });

  it("uses the builtin matcher quietly when agentevals is not installed, and says how to install it when asked for", () => {
    // Node's own "Cannot find package 'agentevals'": resolved from a folder with no node_modules.
    const nowhere = JSON.stringify(pathToFileURL(join(temp, "no-packages-here.mjs")).href);
    const missing = hookOptions(
      "missing-agentevals",
      `return next(specifier, { ...context, parentURL: ${nowhere} });`,
    );
    const quiet = runNode(matchScript(""), false, missing);
    expect(quiet.status, quiet.stderr).toBe(0);
    expect(JSON.parse(quiet.stdout.trim().split("\n").pop() as string)).toEqual({
      good: true,
      bad: false,
      engine: "builtin",
      notes: [],
    });
    const asked = runNode(matchScript(`engine: "agentevals"`), false, missing);
    expect(asked.status, asked.stderr).toBe(0);
    const report = JSON.parse(asked.stdout.trim().split("\n").pop() as string);
    expect(report).toMatchObject({ good: true, bad: false, engine: "builtin" });
    expect(report.notes).toEqual([
      [
        "agentevals-unavailable",
        "info",
        expect.stringContaining("not installed (it is an optional peer dependency: npm install agentevals)"),
      ],
    ]);
  });
});
