import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { claudeCodeRunner, skipIfNoClaude } from "@evals/claude-code";
import { readRunFolder } from "@evals/core";
import {
  type EvalCase,
  gradeStoredRun,
  gradeWhileReading,
  loadStoredRun,
  parseCaseText,
  scorersForCase,
  streamedRunSource,
} from "@evals/evaluators";
import { evaluateCase } from "@evals/harness";
import { trialScore } from "@evals/logging";
import { countToolResults, reply, scripted, text, toolUse } from "@evals/vcr";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** The real claude CLI installed at the workspace root (2.1.330), and the built `evals` CLI. */
const claudeBin = resolve(__dirname, "../../../node_modules/.bin/claude");
const evalsCli = resolve(__dirname, "../dist/cli.js");

let root: string;
let project: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "harness-grade-"));
  project = join(root, "project");
  mkdirSync(project);
  writeFileSync(join(project, "a.txt"), "hello from a\n");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Lists, reads a.txt, writes out.txt, then reports: a mixed verdict (some scorers fail). */
const script = (dir: string) =>
  scripted((request) => {
    switch (countToolResults(request)) {
      case 0:
        return reply(text("Listing."), toolUse("Bash", { command: "ls", description: "list files" }));
      case 1:
        return reply(toolUse("Read", { file_path: `${dir}/a.txt` }));
      case 2:
        return reply(toolUse("Write", { file_path: `${dir}/out.txt`, content: "report\n" }));
      default:
        return reply(text("Done: out.txt written."));
    }
  });

const caseYaml = (dir: string) => `
id: write-report
name: lists, reads and writes the report
prompt: List the files, read a.txt and write out.txt.
agent:
  allowedTools: ["Bash(ls:*)", "Read"]
  options:
    permissionMode: acceptEdits
behavior:
  mustUseTools: [Bash, Read, Write]
  expectedResponse: { contains: "Done" }
expectedTrajectory:
  mode: strict
  calls: [Bash, Read, { tool: Edit, args: { file_path: ${dir}/out.txt } }]
threshold: 0.9
`;

function grade(...args: string[]) {
  const child = spawnSync(process.execPath, [evalsCli, "grade", ...args], {
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, FORCE_COLOR: "0" },
  });
  return { code: child.status, stdout: child.stdout, stderr: child.stderr };
}

describe("evals grade on a harness run folder", () => {
  it("gives the verdict the harness gave: the same scores, the same pass/fail", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    const caseFile = join(root, "write-report.yaml");
    writeFileSync(caseFile, caseYaml(project));
    const evalCase = parseCaseText(caseYaml(project), caseFile)[0] as EvalCase;
    const outcome = await evaluateCase(evalCase, 0, {
      suite: "grade-run-folder",
      scorers: scorersForCase(evalCase),
      ...(evalCase.threshold !== undefined ? { threshold: evalCase.threshold } : {}),
      outputRoot: join(root, "out"),
      model: () => script(project),
      task: (_case, context) =>
        context.runAgent(
          {
            prompt: evalCase.prompt as string,
            options: { claudeBin, permissionMode: evalCase.agent.options?.permissionMode },
            cwd: project,
            allowedTools: evalCase.agent.allowedTools as string[],
            timeoutMs: 120_000,
          },
          claudeCodeRunner,
        ),
    });
    const trial = outcome.result.trials[0]!;
    expect(trial.error).toBeUndefined();
    const harness = trial.scores.map(({ scorer, score, passed }) => ({ scorer, score, passed }));
    // A mixed verdict, so the comparison below can tell a difference.
    expect(harness.some((score) => score.passed)).toBe(true);
    expect(harness.some((score) => !score.passed)).toBe(true);
    expect(outcome.passed).toBe(false);

    // The folder holds the run the harness graded, the options it ran with, the case and the verdict.
    const folder = await readRunFolder(trial.output_dir as string);
    expect(folder.source).toBe("result");
    expect(folder.result?.exit_code).toBe(0);
    expect(folder.manifest?.agent).toMatchObject({
      permissionMode: "acceptEdits",
      allowedTools: ["Bash(ls:*)", "Read"],
    });
    expect(folder.manifest?.case?.grading?.verdict.status).toBe("failed");

    // Without --case: the case stored in the run folder.
    for (const args of [[], ["--case", caseFile]]) {
      const graded = grade(trial.output_dir as string, "--json", ...args);
      expect(graded.stderr).toBe("");
      expect(graded.code).toBe(1);
      const report = JSON.parse(graded.stdout) as {
        format: string;
        passed: boolean;
        score: number;
        verdicts: { evaluator: string; score: number; ok: boolean }[];
        harnessVerdict?: { status: string };
      };
      expect(report.format).toBe("run-result");
      expect(report.passed).toBe(outcome.passed);
      expect(
        report.verdicts.map(({ evaluator, score, ok }) => ({ scorer: evaluator, score, passed: ok })),
      ).toEqual(harness);
      // One score for the case, the harness's: the mean of its scorers' (the issue saw 0.81 vs 0.79).
      expect(report.score).toBe(trialScore(trial));
      expect(report.score).toBe(outcome.result.stats?.mean_score);
      expect(report.harnessVerdict?.status).toBe("failed");
    }

    // The folder's result.json is graded while it is read, one event at a time: with the case given
    // and with the stored one, as grading the whole stored result judges it.
    const stored = await loadStoredRun(trial.output_dir as string);
    for (const given of [evalCase, undefined]) {
      const source = await streamedRunSource(trial.output_dir as string);
      expect(source?.format).toBe("run-result");
      const streamed = await gradeWhileReading(source!, given);
      expect(streamed?.evaluation).toEqual((await gradeStoredRun(stored, given)).evaluation);
      expect(streamed?.harnessVerdict?.status).toBe("failed");
    }
  });
});
