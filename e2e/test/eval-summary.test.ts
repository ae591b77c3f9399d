import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WORKSPACE } from "./packed.js";

/**
 * The summary `npm run eval` ends with (scripts/eval-summary.mjs), on the files real eval suites
 * write: two suites run by vitest with describeEval and @evals/logging's reporter in a workspace of
 * their own, one judging a real captured run (a case that passes, one that fails, two trials each),
 * one skipped because no `claude` is found.
 */

const root = mkdtempSync(join(tmpdir(), "evals-summary-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// As the workspace's eval configs (packageEvals): the workspace packages' dist loads as built, by
// Node (Vite inlining it fails on the builtins tsup writes without "node:", e.g. timers/promises).
const CONFIG = `export default {
  test: {
    include: ["*.eval.ts"],
    testTimeout: 120000,
    server: { deps: { external: [/\\/(packages|plugins)\\/[^/]+\\/dist\\//] } },
    reporters: ["default", ["json", { outputFile: "test-results/eval/vitest.json" }], ["@evals/logging/reporter", {}]],
  },
};
`;

const JUDGED = `import { readFileSync } from "node:fs";
import { runFromStreamJson } from "@evals/core";
import { parseCase, scorersForCase } from "@evals/evaluators";
import { describeEval } from "@evals/harness/vitest";

// A real Claude Code 2.1.330 run: it pressed on after a failed Read.
const stream = readFileSync(${JSON.stringify(join(WORKSPACE, "fixtures", "claude-code-2.1.330", "multi-tool", "stream.jsonl"))}, "utf8");
const cases = [
  parseCase({ id: "uses-bash", name: "uses Bash", prompt: "do the steps", behavior: { mustUseTools: ["Bash"] },
    expectedViolations: [{ rule: "stop-on-failure", type: "unrequested-fix" }] }),
  parseCase({ id: "uses-grep", name: "uses Grep", prompt: "do the steps", behavior: { mustUseTools: ["Grep"] } }),
];
for (const evalCase of cases) {
  describeEval("judged", {
    data: [evalCase],
    scorers: scorersForCase(evalCase),
    trials: 2,
    task: () => runFromStreamJson(stream.split("\\n").filter(Boolean).map((line) => JSON.parse(line)), { prompts: ["do the steps"] }),
  });
}
`;

const NEEDS_CLAUDE = `import { claudeCodeRunner } from "@evals/claude-code";
import { describeEval } from "@evals/harness/vitest";

describeEval("needs claude", {
  data: [{ id: "lists", input: "list the files" }],
  scorers: [],
  agent: claudeCodeRunner,
  requiresAgent: true,
  task: (prompt, { runAgent }) => runAgent({ prompt }),
});
`;

/**
 * A with/without comparison through the real claude CLI and a scripted model (recorded here, no
 * network): the model lists the notes with Bash only when the system prompt has the house rule, so
 * the baseline variant (mustPass: false) fails the case and the other passes it.
 */
const VARIANTS = `import { fileURLToPath } from "node:url";
import { claudeCodeRunner } from "@evals/claude-code";
import { describeCases } from "@evals/harness/vitest";
import { countToolResults, lastToolResult, reply, systemText, text, toolUse } from "@evals/vcr";

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const model = (request) => {
  if (!systemText(request).includes("House rule")) return reply(text("There are probably some notes."));
  return countToolResults(request) === 0
    ? reply(toolUse("Bash", { command: "ls notes", description: "List the notes" }))
    : reply(text(\`The notes: \${lastToolResult(request)?.text.trim().split("\\n").join(", ")}\`));
};

describeCases("notes", {
  cases: here("./notes.yaml"),
  variants: [
    { name: "plain", mustPass: false },
    { name: "house-rule", agent: { options: { appendSystemPrompt: "House rule: look at the files with Bash before you answer." } } },
  ],
  model: () => model,
  cassette: { dir: here("./cassettes") },
  agent: claudeCodeRunner,
  requiresAgent: true,
});
`;

const NOTES_CASE = `id: lists-the-notes
prompt: Which notes are there?
agent:
  fixture: fixture
  allowedTools: [Bash]
  maxTurns: 4
behavior:
  mustUseTools: [Bash]
  expectedResponse:
    contains: [a.md, b.md]
`;

function suite(
  name: string,
  evalFile: string,
  options: { in?: string; env?: Record<string, string> } = {},
): string {
  const dir = join(options.in ?? root, "examples", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "vitest.eval.config.mjs"), CONFIG);
  writeFileSync(join(dir, `${name}.eval.ts`), evalFile);
  const vitest = spawnSync(
    process.execPath,
    [join(WORKSPACE, "node_modules", "vitest", "vitest.mjs"), "run", "-c", "vitest.eval.config.mjs"],
    {
      cwd: dir,
      encoding: "utf8",
      timeout: 240_000,
      // No claude anywhere unless the suite asks for one: a claude that is not there.
      env: {
        ...process.env,
        FORCE_COLOR: "0",
        EVALS_CLAUDE_BIN: join(root, "no-claude-here"),
        ...options.env,
      },
    },
  );
  return vitest.stdout + vitest.stderr;
}

function summary(
  nxStatus = 0,
  timing?: { wallMs: number; cpuMs?: number },
  workspace = root,
): { text: string; failed: boolean } {
  const script = `const { evalSummary } = await import(${JSON.stringify(join(WORKSPACE, "scripts", "eval-summary.mjs"))});
const { projectDirs } = await import(${JSON.stringify(join(WORKSPACE, "scripts", "workspace-reports.mjs"))});
const root = process.argv[1];
const timing = process.argv[3] ? JSON.parse(process.argv[3]) : undefined;
const { text, failed } = evalSummary({ root, projects: projectDirs(root), nxStatus: Number(process.argv[2]), ...(timing ? { timing } : {}) });
process.stdout.write(JSON.stringify({ text, failed }));`;
  const child = spawnSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      script,
      "--",
      workspace,
      String(nxStatus),
      ...(timing ? [JSON.stringify(timing)] : []),
    ],
    {
      encoding: "utf8",
    },
  );
  expect(child.stderr).toBe("");
  return JSON.parse(child.stdout);
}

describe("the eval summary (scripts/eval-summary.mjs)", () => {
  beforeAll(() => {
    symlinkSync(join(WORKSPACE, "node_modules"), join(root, "node_modules"), "dir");
    const judged = suite("judged", JUDGED);
    expect(judged).toContain("uses Grep");
    suite("needs-claude", NEEDS_CLAUDE);
    // A project without eval reports is not listed.
    mkdirSync(join(root, "packages", "library"), { recursive: true });
  }, 480_000);

  it("gives each suite's cases, trials, passed and failed, and where its report is", () => {
    const { text } = summary();
    expect(text).toMatch(
      /\n {2}examples\/judged +2 cases +1 passed +1 failed +4 trials +examples\/judged\/results\/report\.html\n/,
    );
    expect(text).toContain("Reports (open in a browser):\n  examples/judged/results/report.html");
    expect(text).not.toContain("packages/library");
  });

  it("names each failed case with the first lines of why", () => {
    const { text } = summary();
    expect(text).toMatch(
      /Failed eval cases:\n {2}examples\/judged\/judged\.eval\.ts > judged uses Grep\n +.*Grep/,
    );
    expect(text).not.toContain("> judged uses Bash");
  });

  it("prints why a suite was skipped: the claude it could not find", () => {
    const { text } = summary();
    expect(text).toMatch(
      /\n {2}examples\/needs-claude +0 cases .*1 test skipped: claude-code is not available: /,
    );
    expect(text).toContain(
      "Skipped:\n  examples/needs-claude (1 test): claude-code is not available: Claude Code CLI not found (EVALS_CLAUDE_BIN names no executable)",
    );
  });

  it("ends with the totals, and fails on a failed case or a failed Nx run", () => {
    const { text, failed } = summary();
    expect(text.split("\n").pop()).toBe(
      "Evals: 2 cases, 4 trials in 2 suites: 1 passed, 1 failed, 1 test skipped",
    );
    expect(failed).toBe(true);
    const nxFailed = summary(1);
    expect(nxFailed.text).toContain("Nx exited with 1: a build or eval target failed (see above).");
  });

  it("prints the CPU time beside the wall time after the totals, measured from the children that ran", () => {
    const { text } = summary(0, { wallMs: 49_600, cpuMs: 80_000 });
    expect(text.split("\n").slice(-2)).toEqual([
      "Evals: 2 cases, 4 trials in 2 suites: 1 passed, 1 failed, 1 test skipped",
      "Took 49.6 s wall, 1 min 20 s CPU (1.6 cores busy on average)",
    ]);
    // What run-evals.mjs measures: the CPU of the finished children (here a node that spins until it
    // has used 1 s of CPU, however busy the machine is).
    const measured = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const { childrenCpuMs } = await import(${JSON.stringify(join(WORKSPACE, "scripts", "eval-summary.mjs"))});
const { spawnSync } = await import("node:child_process");
const before = childrenCpuMs();
spawnSync(process.execPath, ["-e", "while (process.cpuUsage().user < 1e6);"]);
process.stdout.write(String(childrenCpuMs() - before));`,
      ],
      { encoding: "utf8" },
    );
    expect(Number(measured.stdout)).toBeGreaterThanOrEqual(1000);
  });

  it("lists the with/without comparisons the suites wrote, with the verdict in a line", () => {
    // A comparison written as describeCases' variants write it: compareResults of two results files.
    const folder = join(root, "examples", "judged", "results", "variants", "judged");
    mkdirSync(folder, { recursive: true });
    const script = `const { compareResults, readResults } = await import("@evals/logging");
const results = readResults(process.argv[1]);
process.stdout.write(JSON.stringify(compareResults(results, results, { labels: ["off", "on"] })));`;
    const compared = spawnSync(
      process.execPath,
      ["--input-type=module", "-e", script, "--", join(root, "examples", "judged", "results", "latest.json")],
      { cwd: WORKSPACE, encoding: "utf8" },
    );
    expect(compared.stderr).toBe("");
    writeFileSync(join(folder, "comparison.json"), compared.stdout);
    try {
      const { text } = summary();
      expect(text).toContain(
        "With/without comparisons:\n  examples/judged judged: on − off: ±0% [−49…+49] within noise (off 2/4, on 2/4 trials over 2 cases; 2 within noise on their own)\n    examples/judged/results/variants/judged/comparison.html",
      );
    } finally {
      rmSync(join(root, "examples", "judged", "results", "variants"), { recursive: true });
    }
  });

  it("counts a baseline variant's failed cases apart (mustPass: false): they fail no run", () => {
    // A workspace of its own, so the other suites' failures do not decide `failed` here.
    const workspace = mkdtempSync(join(tmpdir(), "evals-summary-variants-"));
    try {
      symlinkSync(join(WORKSPACE, "node_modules"), join(workspace, "node_modules"), "dir");
      const dir = join(workspace, "examples", "variants");
      mkdirSync(join(dir, "fixture", "notes"), { recursive: true });
      writeFileSync(join(dir, "notes.yaml"), NOTES_CASE);
      for (const note of ["a.md", "b.md"]) writeFileSync(join(dir, "fixture", "notes", note), "a note\n");
      const output = suite("variants", VARIANTS, {
        in: workspace,
        env: { EVALS_CLAUDE_BIN: join(WORKSPACE, "node_modules", ".bin", "claude"), VCR_MODE: "record" },
      });
      // Both variants' tests pass: the baseline's failed case fails no test.
      expect(output.replace(/\u001b\[[0-9;]*m/g, "")).toMatch(/Tests +2 passed \(2\)/);
      const { text, failed } = summary(0, undefined, workspace);
      expect(text).toMatch(
        /\n {2}examples\/variants +2 cases +1 passed +0 failed +2 trials +\(1 failed in a baseline, not gated\)/,
      );
      expect(text.split("\n").pop()).toBe(
        "Evals: 2 cases, 2 trials in 1 suite: 1 passed, 0 failed, 1 failed in baseline variants (mustPass: false, not gated)",
      );
      expect(failed).toBe(false);
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  }, 300_000);

  it("says which report it cannot read, and fails", () => {
    const broken = join(root, "examples", "broken", "results");
    mkdirSync(broken, { recursive: true });
    writeFileSync(join(broken, "latest.json"), "{ cut off");
    try {
      const { text, failed } = summary();
      expect(text).toMatch(/\n {2}examples\/broken +unreadable report: .*JSON/);
      expect(failed).toBe(true);
    } finally {
      rmSync(join(root, "examples", "broken"), { recursive: true });
    }
  });
});
