import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import semver from "semver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CLAUDE_BIN,
  installTarballs,
  type PackedPackage,
  pack,
  publishablePackages,
  runIn,
  runScript,
  siblingDependencies,
  tarballsFor,
  WORKSPACE,
} from "./packed.js";

/**
 * Packs every publishable package the way `npm publish` would, installs the tarballs into a fresh
 * project outside the workspace, and uses them there as a user would: ESM and CJS imports, the types,
 * the hook executable, the grade CLI and a small eval run of the real claude CLI.
 */

const FIXTURE_STREAM = join(WORKSPACE, "fixtures/claude-code-2.1.330/multi-tool/stream.jsonl");
const publishable = publishablePackages();

let root: string;
let project: string;
let packed: PackedPackage[];

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "evals-packed-"));
  project = join(root, "project");
  packed = publishable.map((pkg) => pack(pkg, join(root, "tarballs")));
  // Every package and the packages of ours they depend on, all from tarballs: throws when one depends
  // on a package of ours that was not packed (the registry is refused for @evals/* anyway).
  installTarballs(
    project,
    tarballsFor(
      packed.map((pkg) => pkg.name),
      packed,
    ),
  );
}, 600_000);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

const installed = (name: string, ...path: string[]) =>
  join(project, "node_modules", ...name.split("/"), ...path);

describe("the packed packages", () => {
  it("are every publishable package of the workspace", () => {
    expect(publishable.map((pkg) => pkg.name).sort()).toEqual([
      "@evals/claude-code",
      "@evals/cli",
      "@evals/codex",
      "@evals/core",
      "@evals/evaluators",
      "@evals/gemini-cli",
      "@evals/harness",
      "@evals/hooks",
      "@evals/judge",
      "@evals/logging",
      "@evals/opencode",
      "@evals/otel",
      "@evals/store",
      "@evals/vcr",
      "@evals/viewer",
      "@evals/worktree",
    ]);
  });

  it("ship their build, README and licence fields, never their sources or tests", () => {
    for (const pkg of packed) {
      const paths = pkg.files.map((file) => file.path);
      expect(paths, pkg.name).toContain("package.json");
      expect(paths, pkg.name).toContain("README.md");
      expect(
        paths.some((path) => path.startsWith("dist/")),
        pkg.name,
      ).toBe(true);
      expect(
        paths.filter((path) =>
          /^(src|test)\/|\.test\.|^(vitest|tsup)(\.[a-z]+)*\.config\.|^tsconfig/.test(path),
        ),
        pkg.name,
      ).toEqual([]);
      const manifest = JSON.parse(readFileSync(installed(pkg.name, "package.json"), "utf8"));
      expect(manifest.license, pkg.name).toBe("MIT");
      expect(manifest.version, pkg.name).toBe(pkg.version);
    }
  });

  it("depend on packages of ours only in ranges that the packed versions satisfy", () => {
    const versions = new Map(packed.map((pkg) => [pkg.name, pkg.version]));
    const unsatisfied = packed.flatMap((pkg) =>
      Object.entries(siblingDependencies(pkg))
        .filter(([name, range]) => !semver.satisfies(versions.get(name) ?? "0.0.0-missing", range))
        .map(([name, range]) => `${pkg.name} -> ${name}@${range} (packed: ${versions.get(name) ?? "none"})`),
    );
    expect(unsatisfied).toEqual([]);
  });

  it("are installed from their tarballs, and the workspace's inter-package ranges resolve to them", () => {
    const lock = JSON.parse(readFileSync(join(project, "package-lock.json"), "utf8")) as {
      packages: Record<string, { resolved?: string; link?: boolean }>;
    };
    for (const pkg of packed) {
      const entry = lock.packages[`node_modules/${pkg.name}`];
      expect(entry?.resolved, pkg.name).toBe(`file:${relative(project, pkg.tarball)}`);
      expect(entry?.link, pkg.name).toBeUndefined();
    }
    // No nested copy of one of ours came from anywhere else.
    const nested = Object.keys(lock.packages).filter((path) =>
      /node_modules\/.+\/node_modules\/@evals\//.test(path),
    );
    expect(nested).toEqual([]);
  });
});

describe("in a fresh project", () => {
  it("has agentevals, which @evals/harness brings, decide trajectory matches", () => {
    const out = runScript(
      project,
      "agentevals.mjs",
      `import { readFileSync } from "node:fs";
       import { parseJsonl, runFromStreamJson } from "@evals/core";
       import { trajectoryMatch } from "@evals/evaluators";
       const file = ${JSON.stringify(FIXTURE_STREAM)};
       const run = runFromStreamJson(parseJsonl(readFileSync(file, "utf8"), file));
       const result = await trajectoryMatch(run, { expected: ["Bash", "Read", "Read"], mode: "superset" });
       console.log(JSON.stringify({ passed: result.passed, engine: result.metadata.engine }));`,
    );
    expect(out).toEqual({ passed: true, engine: "agentevals" });
  });

  it("imports @evals/evaluators and @evals/core from ESM and judges a real run", () => {
    const out = runScript(
      project,
      "esm.mjs",
      `import { readFileSync } from "node:fs";
       import { parseJsonl, runFromStreamJson, toolSequence } from "@evals/core";
       import { behavior, evaluate, parseCaseText, readBeforeWrite } from "@evals/evaluators";
       const file = ${JSON.stringify(FIXTURE_STREAM)};
       const run = runFromStreamJson(parseJsonl(readFileSync(file, "utf8"), file));
       const [evalCase] = parseCaseText("id: uses-read\\nprompt: follow the steps\\nbehavior:\\n  mustUseTools: [Read]\\n  mustNotUseTools: [Edit]\\n", "case.yaml");
       const evaluation = await evaluate(run, evalCase);
       console.log(JSON.stringify({
         tools: toolSequence(run),
         readBeforeWrite: readBeforeWrite(run).evaluator,
         usesGrep: behavior(run, { mustUseTools: ["Grep"] }).passed,
         behaviorVerdict: evaluation.verdicts.find((verdict) => verdict.evaluator === "behavior").passed,
       }));`,
    );
    expect(out).toEqual({
      tools: ["Bash", "Read", "Bash", "Read", "Write"],
      readBeforeWrite: "read-before-write",
      usesGrep: false,
      behaviorVerdict: true,
    });
  });

  it("requires every dual package from CommonJS", () => {
    const out = runScript(
      project,
      "cjs.cjs",
      `const core = require("@evals/core");
       const evaluators = require("@evals/evaluators");
       const hooks = require("@evals/hooks");
       const logging = require("@evals/logging");
       const vcr = require("@evals/vcr");
       const worktree = require("@evals/worktree");
       const run = core.runFromStreamJson([]);
       const verdict = evaluators.forbiddenCommands(run, { patterns: ["rm -rf"] });
       console.log(JSON.stringify({
         readJsonl: typeof core.readJsonl,
         forbidden: [verdict.evaluator, verdict.passed],
         hookSettings: typeof hooks.hookSettings,
         writeReports: typeof logging.writeReports,
         scripted: typeof vcr.scripted,
         worktree: Object.keys(worktree).length > 0,
       }));`,
    );
    expect(out).toEqual({
      readJsonl: "function",
      forbidden: ["forbidden-commands", true],
      hookSettings: "function",
      writeReports: "function",
      scripted: "function",
      worktree: true,
    });
  });

  it("type-checks a user's TypeScript against the installed declarations (ESM and CJS)", () => {
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "nodenext",
          moduleResolution: "nodenext",
          target: "es2022",
          strict: true,
          noEmit: true,
          // The user's own code is checked against our declarations; the libraries' insides are not.
          skipLibCheck: true,
          typeRoots: [join(WORKSPACE, "node_modules", "@types")],
          types: ["node"],
        },
        files: ["user.mts", "user.cts"],
      }),
    );
    writeFileSync(
      join(project, "user.mts"),
      `import type { Run } from "@evals/core";
       import { type EvalCase, parseCaseText, scorersForCase } from "@evals/evaluators";
       import type { RunAgentOptions } from "@evals/claude-code";
       import type { CaseResult } from "@evals/logging";
       import { scripted } from "@evals/vcr";
       export const cases: EvalCase[] = parseCaseText("id: a\\nprompt: hi\\n", "a.yaml");
       export const scorerNames = (run: Run) => scorersForCase(cases[0]!).map((scorer) => scorer.name + run.events.length);
       export const options: RunAgentOptions = { prompt: "hi", maxTurns: 2 };
       export const model = scripted(() => ({ kind: "message", content: [], stop_reason: "end_turn" }));
       export type Result = CaseResult["status"];
      `,
    );
    writeFileSync(
      join(project, "user.cts"),
      `import core = require("@evals/core");
       import evaluators = require("@evals/evaluators");
       export const run: core.Run = core.runFromStreamJson([]);
       export const passed: boolean = evaluators.readBeforeWrite(run).passed;
      `,
    );
    const tsc = join(WORKSPACE, "node_modules", "typescript", "bin", "tsc");
    const result = runIn(project, process.execPath, [tsc, "-p", "tsconfig.json"], { allowFailure: true });
    expect(result.status, result.stdout + result.stderr).toBe(0);
    expect(result.stdout + result.stderr).toBe("");
  });

  it("runs the installed hook executable, which captures an event and prints nothing", () => {
    const payload = JSON.stringify({
      session_id: "s-1",
      transcript_path: join(project, "t.jsonl"),
      cwd: project,
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "ls" },
      tool_use_id: "toolu_1",
    });
    const output = join(root, "hook-output");
    const result = runIn(project, join(project, "node_modules", ".bin", "evals-hook"), [], {
      input: payload,
      env: { TEST_MODE: "true", TEST_RUN_ID: "packed-run", EVALS_OUTPUT_DIR: output },
      timeoutMs: 30_000,
    });
    expect(result.stdout).toBe("");
    const lines = readFileSync(join(output, "test-output", "packed-run", "events.jsonl"), "utf8")
      .trim()
      .split("\n");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      run_id: "packed-run",
      event: { hook_event_name: "PreToolUse", tool_use_id: "toolu_1" },
    });
  });

  it("runs a small eval: the real claude CLI against a scripted model, judged, reported and re-graded by the CLI", () => {
    const workdir = join(root, "agent-project");
    const out = runScript(
      project,
      "eval.mjs",
      `import { mkdirSync, writeFileSync } from "node:fs";
       import { join } from "node:path";
       import { toolSequence } from "@evals/core";
       import { evaluate, parseCaseText } from "@evals/evaluators";
       import { runAgent } from "@evals/claude-code";
       import { caseResult, writeReports } from "@evals/logging";
       import { countToolResults, lastToolResult, reply, requestEnvironment, scripted, startModelServer, text, toolUse } from "@evals/vcr";

       const workdir = ${JSON.stringify(workdir)};
       mkdirSync(workdir, { recursive: true });
       writeFileSync(join(workdir, "notes.txt"), "packed and installed\\n");
       writeFileSync("case.yaml", [
         "id: read-notes",
         "prompt: Read notes.txt and tell me what it says.",
         "behavior:",
         "  mustUseTools: [Read]",
         "  mustNotUseTools: [Bash]",
         "  expectedResponse: { contains: packed and installed }",
       ].join("\\n"));
       const [evalCase] = parseCaseText(await import("node:fs").then((fs) => fs.readFileSync("case.yaml", "utf8")), "case.yaml");
       const server = await startModelServer({
         source: scripted((request) =>
           countToolResults(request) === 0
             ? reply(toolUse("Read", { file_path: join(requestEnvironment(request).cwd, "notes.txt") }))
             : reply(text("The file says: " + lastToolResult(request).text)),
         ),
       });
       try {
         const result = await runAgent({ prompt: evalCase.prompt, cwd: workdir, baseUrl: server.url, outputRoot: process.cwd(), timeoutMs: 90_000 });
         const evaluation = await evaluate(result.run, evalCase);
         const trial = {
           status: evaluation.passed ? "passed" : "failed",
           scores: evaluation.verdicts.map((verdict) => ({ scorer: verdict.evaluator, score: verdict.score, passed: verdict.ok })),
           run: result.run,
           run_id: result.run_id,
           origin: result.origin,
           duration_ms: result.duration_ms,
         };
         const { files } = writeReports([caseResult({ id: evalCase.id, name: evalCase.id, trials: [trial] })], { dir: "results" });
         console.log(JSON.stringify({
           exit: result.exit_code,
           error: result.error ?? null,
           tools: toolSequence(result.run),
           passed: evaluation.passed,
           reasons: evaluation.reasons,
           outputDir: result.output_dir,
           reports: [files.latest, files.html].map((file) => file.slice(process.cwd().length + 1)),
         }));
       } finally {
         await server.close();
       }`,
      { EVALS_CLAUDE_BIN: CLAUDE_BIN },
    ) as { outputDir: string; reports: string[] };
    expect(out).toMatchObject({
      exit: 0,
      error: null,
      tools: ["Read"],
      passed: true,
      reasons: [],
      reports: ["results/latest.json", "results/report.html"],
    });
    const latest = JSON.parse(readFileSync(join(project, "results", "latest.json"), "utf8"));
    expect(latest.cases).toMatchObject([{ id: "read-notes", status: "passed" }]);
    expect(readFileSync(join(project, "results", "report.html"), "utf8")).toContain("read-notes");

    // The stored run, graded again by the installed CLI: passes as is, fails against a stricter case.
    expect(existsSync(join(out.outputDir, "stream.jsonl"))).toBe(true);
    const pass = runIn(
      project,
      join(project, "node_modules", ".bin", "evals"),
      ["grade", out.outputDir, "--case", "case.yaml"],
      {
        allowFailure: true,
      },
    );
    expect(pass.status, pass.stdout + pass.stderr).toBe(0);
    writeFileSync(
      join(project, "strict.yaml"),
      "id: must-grep\nprompt: Read notes.txt and tell me what it says.\nbehavior:\n  mustUseTools: [Grep]\n",
    );
    const fail = runIn(
      project,
      join(project, "node_modules", ".bin", "evals"),
      ["grade", out.outputDir, "--case", "strict.yaml"],
      {
        allowFailure: true,
      },
    );
    expect(fail.status).toBe(1);
    expect(fail.stdout + fail.stderr).toContain("Grep");
  });

  it("runs an eval file with describeEval under the vitest npm installed for @evals/harness, reports included", () => {
    writeFileSync(
      join(project, "cases.yaml"),
      `id: lists-with-ls
prompt: What is in this folder?
behavior: { mustUseTools: [Bash] }
expectedViolations: [{ rule: tool-usage, shouldViolate: false }]
---
id: reads-with-cat
prompt: What is in notes.txt?
behavior: { mustUseTools: [Read] }
expectedViolations:
  - { rule: tool-usage, type: bash-instead-of-read }
  - { rule: behavior, type: missing-required-tool }
`,
    );
    writeFileSync(
      join(project, "vitest.config.mjs"),
      `import { defineConfig } from "vitest/config";
       export default defineConfig({
         test: { include: ["*.eval.mjs"], testTimeout: 120000, reporters: ["default", "@evals/logging/reporter"] },
       });`,
    );
    writeFileSync(
      join(project, "agent.eval.mjs"),
      `import { mkdtempSync, writeFileSync } from "node:fs";
       import { tmpdir } from "node:os";
       import { join } from "node:path";
       import { loadCases, scorersForCase } from "@evals/evaluators";
       import { claudeCodeRunner } from "@evals/claude-code";
       import { describeEval } from "@evals/harness/vitest";
       import { countToolResults, reply, scripted, text, toolUse } from "@evals/vcr";

       // One scripted agent per case: the first lists with ls, the second reads with cat.
       const commands = { "lists-with-ls": "ls", "reads-with-cat": "cat notes.txt" };
       for (const evalCase of loadCases("cases.yaml")) {
         describeEval("packed", {
           agent: claudeCodeRunner,
           data: [evalCase],
           scorers: scorersForCase(evalCase),
           model: () =>
             scripted((request) =>
               countToolResults(request) === 0
                 ? reply(toolUse("Bash", { command: commands[evalCase.id] }))
                 : reply(text("Done.")),
             ),
           task: (_case, trial) => {
             const cwd = mkdtempSync(join(tmpdir(), "packed-eval-"));
             writeFileSync(join(cwd, "notes.txt"), "hello\\n");
             return trial.runAgent({ prompt: evalCase.prompt, cwd, allowedTools: ["Bash(ls)", "Bash(cat:*)"] });
           },
         });
       }`,
    );
    const vitest = runIn(project, join(project, "node_modules", ".bin", "vitest"), ["run"], {
      env: { EVALS_CLAUDE_BIN: CLAUDE_BIN },
      timeoutMs: 300_000,
      allowFailure: true,
    });
    expect(vitest.status, vitest.stdout + vitest.stderr).toBe(0);
    const latest = JSON.parse(readFileSync(join(project, "results", "latest.json"), "utf8"));
    const byId = Object.fromEntries(
      (latest.cases as { id: string; status: string; violations: { rule: string; type: string }[] }[]).map(
        (c) => [c.id, c],
      ),
    );
    expect(byId["lists-with-ls"]?.status).toBe("passed");
    expect(byId["reads-with-cat"]?.status).toBe("passed");
    expect(byId["reads-with-cat"]?.violations.map((v) => `${v.rule}/${v.type}`)).toEqual(
      expect.arrayContaining(["tool-usage/bash-instead-of-read", "behavior/missing-required-tool"]),
    );
    expect(existsSync(join(project, "results", "report.html"))).toBe(true);
  });
});
