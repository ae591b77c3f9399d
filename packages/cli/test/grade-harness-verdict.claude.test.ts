import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { claudeCodeRunner, skipIfNoClaude } from "@evals/claude-code";
import { readRunFolder } from "@evals/core";
import { type EvalCase, parseCase, scorersForCase, trajectoryScorer } from "@evals/evaluators";
import { type CaseSettings, evaluateCase } from "@evals/harness";
import { listThenRead, neverDone } from "@evals/test-kit/models";
import { scripted, startModelServer } from "@evals/vcr";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** The real claude CLI installed at the workspace root (2.1.330), and the built `evals` CLI. */
const claudeBin = resolve(__dirname, "../../../node_modules/.bin/claude");
const evalsCli = resolve(__dirname, "../dist/cli.js");

let root: string;
let project: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "harness-grade-verdict-"));
  project = join(root, "project");
  mkdirSync(project);
  writeFileSync(join(project, "a.txt"), "hello from a\n");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface GradeReport {
  passed: boolean;
  reasons: string[];
  verdicts: { evaluator: string; score: number; ok: boolean }[];
  harnessVerdict?: { status: string; error?: string };
}

function grade(...args: string[]) {
  const child = spawnSync(process.execPath, [evalsCli, "grade", ...args], {
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, FORCE_COLOR: "0" },
  });
  return { code: child.status, stdout: child.stdout, stderr: child.stderr };
}

describe("evals grade on the run folder of a trial the harness marked error (real claude CLI)", () => {
  it("fails a replay that diverged from its recording, with the divergence as the reason", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    const dir = join(root, "cassettes");
    const replayProject = join(root, "diverged");
    mkdirSync(replayProject);
    writeFileSync(join(replayProject, "a.txt"), "hello from a\n");
    // An @evals/evaluators case whose every evaluator passes on the replayed calls; it accepts any
    // outcome, so only the divergence (which ends the run in an API error) can fail it.
    const evalCase: EvalCase = parseCase({
      id: "list-read",
      outcome: "any",
      prompt: "list and read",
      behavior: { mustUseTools: ["Bash", "Read"] },
      expectedTrajectory: { mode: "strict", calls: ["Bash", "Read"] },
    });
    const settings: CaseSettings<EvalCase> = {
      suite: "grade-diverged",
      task: (_case, { runAgent }) =>
        runAgent(
          { prompt: "list and read", options: { claudeBin }, cwd: replayProject, keepSandbox: "never" },
          claudeCodeRunner,
        ),
      scorers: scorersForCase(evalCase),
      outputRoot: join(root, "out"),
    };
    const upstream = await startModelServer({ source: scripted(listThenRead(replayProject)) });
    try {
      const recorded = await evaluateCase(evalCase, 0, {
        ...settings,
        cassette: { mode: "record", dir, upstream: upstream.url },
      });
      expect(recorded.message).toBeUndefined();
    } finally {
      await upstream.close();
    }
    // The file the agent reads has changed: the request with the Read result matches nothing.
    writeFileSync(join(replayProject, "a.txt"), "changed since the recording\n");
    const replayed = await evaluateCase(evalCase, 0, { ...settings, cassette: { mode: "strict", dir } });
    const trial = replayed.result.trials[0]!;
    expect(trial.status).toBe("error");
    expect(trial.error).toContain("@evals/vcr replay diverged at request 3");

    // The folder says why the harness gave up on the trial.
    const folder = await readRunFolder(trial.output_dir as string);
    expect(folder.manifest?.case?.grading?.verdict).toMatchObject({
      status: "error",
      error: expect.stringContaining("@evals/vcr replay diverged at request 3"),
    });

    // With the stored case, and with a case file: the harness's error fails the run either way.
    const caseFile = join(root, "list-read.json");
    writeFileSync(caseFile, JSON.stringify({ id: "list-read", prompt: "list and read", outcome: "any" }));
    for (const args of [[], ["--case", caseFile]]) {
      const graded = grade(trial.output_dir as string, "--json", ...args);
      expect(graded.code, graded.stderr).toBe(1);
      const report = JSON.parse(graded.stdout) as GradeReport;
      expect(report.passed).toBe(false);
      expect(report.reasons.join("\n")).toContain("@evals/vcr replay diverged at request 3");
      expect(report.harnessVerdict?.status).toBe("error");
    }
    const text = grade(trial.output_dir as string);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain("Verdict: FAIL");
    expect(text.stdout).toContain("@evals/vcr replay diverged at request 3");
  });
});

describe("evals grade on the run folder of a trial whose task threw after its run (real claude CLI)", () => {
  it("fails it with the task's error, though every scorer would pass the run", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    const evalCase: EvalCase = parseCase({
      id: "threw",
      prompt: "list and read",
      behavior: { mustUseTools: ["Bash", "Read"] },
    });
    const outputRoot = join(root, "threw");
    const outcome = await evaluateCase(evalCase, 0, {
      suite: "grade-threw",
      model: () => scripted(listThenRead(project)),
      task: async (_case, { runAgent }) => {
        await runAgent(
          { prompt: "list and read", options: { claudeBin }, cwd: project, keepSandbox: "never" },
          claudeCodeRunner,
        );
        throw new Error("the task's own check failed after the run");
      },
      scorers: scorersForCase(evalCase),
      outputRoot,
    });
    const trial = outcome.result.trials[0]!;
    expect(trial.status).toBe("error");
    // The task returned no result: the folder is the one the agent's run wrote under the trial's id.
    const dir = join(outputRoot, "test-output", trial.run_id as string);
    const folder = await readRunFolder(dir);
    expect(folder.result?.exit_code).toBe(0);
    expect(folder.manifest?.case?.grading?.verdict).toMatchObject({
      status: "error",
      error: "the task's own check failed after the run",
    });
    const graded = grade(dir, "--json");
    expect(graded.code, graded.stderr).toBe(1);
    const report = JSON.parse(graded.stdout) as GradeReport;
    expect(report.verdicts.every((verdict) => verdict.ok)).toBe(true);
    expect(report.passed).toBe(false);
    expect(report.reasons).toEqual([
      "harness: the harness marked this trial error: the task's own check failed after the run",
    ]);
  });
});

describe("describeEval's outcome option, stored in the run folder (real claude CLI)", () => {
  const evalCase: EvalCase = parseCase({
    id: "loop",
    prompt: "loop",
    behavior: { mustUseTools: ["Bash"] },
  });
  const settings = (outcome: CaseSettings<EvalCase>["outcome"], scorers: CaseSettings<EvalCase>["scorers"]) =>
    ({
      suite: `outcome-${String(outcome)}`,
      model: () => scripted(neverDone),
      task: (_case, { runAgent }) =>
        runAgent(
          {
            prompt: "loop",
            options: { claudeBin },
            cwd: project,
            maxTurns: 2,
            keepSandbox: "never",
            env: { CLAUDE_CODE_MAX_RETRIES: "0" },
          },
          claudeCodeRunner,
        ),
      scorers,
      outcome,
      outputRoot: join(root, "out"),
    }) satisfies CaseSettings<EvalCase>;

  it.for([
    ["max_turns", "the case's scorers", () => scorersForCase(evalCase), true],
    [
      "max_turns",
      "a trajectory scorer",
      () => [trajectoryScorer({ expected: ["Bash", "Bash"], engine: "builtin" })],
      true,
    ],
    ["any", "the case's scorers", () => scorersForCase(evalCase), true],
    ["success", "the case's scorers", () => scorersForCase(evalCase), false],
  ] as const)(
    "a run that stopped at max turns in a suite expecting %s (%s): grade gives the harness's verdict",
    async ([outcome, _scorers, scorers, passes], ctx) => {
      skipIfNoClaude(ctx, { claudeBin });
      const result = await evaluateCase(evalCase, 0, settings(outcome, scorers()));
      const trial = result.result.trials[0]!;
      expect(trial.error).toBeUndefined();
      expect(result.passed, result.message).toBe(passes);
      const folder = await readRunFolder(trial.output_dir as string);
      expect(folder.manifest?.case?.grading?.outcome).toEqual(outcome);

      const graded = grade(trial.output_dir as string, "--json");
      expect(graded.stderr).toBe("");
      expect(graded.code).toBe(passes ? 0 : 1);
      const report = JSON.parse(graded.stdout) as GradeReport;
      expect(report.passed).toBe(passes);
      const outcomeOf = (verdicts: { evaluator: string; ok: boolean }[]) =>
        verdicts.find((verdict) => verdict.evaluator === "outcome")?.ok;
      expect(outcomeOf(report.verdicts)).toBe(outcome !== "success");
      if (!passes) expect(report.reasons.join("\n")).toContain("the agent stopped at the maximum of 2 turns");
    },
  );
});
