import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { claudeCodeRunner } from "@evals/claude-code";
import { readRunFolder, runFromStreamJson } from "@evals/core";
import { type EvalCase, parseCase, scorersForCase } from "@evals/evaluators";
import { evaluateCase } from "@evals/harness";
import { trialScore } from "@evals/logging";
import { fixtureStream } from "@evals/test-kit/claude-fixtures";
import { buildCassette, cassettePath, writeCassette } from "@evals/vcr";
import { afterAll, describe, expect, it } from "vitest";

const evalsCli = resolve(__dirname, "../dist/cli.js");
const root = mkdtempSync(join(tmpdir(), "harness-replayed-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("a replayed result's run folder", () => {
  it.each([
    ["the case's threshold", 0.9, false, undefined],
    // describeEval's own thresholds win over the case's: grade must judge with them too.
    ["describeEval's per-scorer threshold", { scorers: { trajectory: 0.3 } }, true, undefined],
    // A suite that runs a few of the case's scorers: only those count, for the verdict and the score.
    ["a suite with some of the case's scorers", 0.9, false, ["behavior", "trajectory", "read-before-write"]],
  ] as const)(
    "is written under the trial's run id, and evals grade gives the harness's verdict (%s)",
    async (_name, threshold, passes, only) => {
      const prompt = "do the steps";
      // The real multi-tool run, recorded as a result cassette.
      const run = runFromStreamJson(fixtureStream("multi-tool"), { prompts: [prompt] });
      const dir = join(root, "cassettes");
      const identity = { suite: "replayed", caseId: "steps", prompt, options: {} };
      writeCassette(
        cassettePath({ ...identity, dir }),
        buildCassette({
          ...identity,
          result: { run_id: "recorded", run, exit_code: 0, timed_out: false, duration_ms: 1, origin: "live" },
        }),
      );
      const evalCase: EvalCase = parseCase({
        id: "steps",
        prompt,
        behavior: { mustUseTools: ["Bash", "Read"] },
        expectedTrajectory: { mode: "strict", calls: ["Bash", "Read", "Write"] },
        // The run pressed on after a failed Read: expected here, so only the threshold decides.
        expectedViolations: [{ rule: "stop-on-failure", type: "unrequested-fix" }],
        threshold: 0.9,
      });
      const outcome = await evaluateCase(evalCase, 0, {
        suite: "replayed",
        // Its recording is a Claude Code run's: keyed by that runner's options.
        agent: claudeCodeRunner,
        scorers: scorersForCase(evalCase).filter(
          (scorer) => only === undefined || (only as readonly string[]).includes(scorer.name),
        ),
        threshold,
        outputRoot: join(root, "out"),
        cassette: { level: "result", mode: "strict", dir },
        task: (_case, context) => context.runAgent({ prompt }),
      });
      const trial = outcome.result.trials[0]!;
      expect(trial.error).toBeUndefined();
      expect(outcome.passed, JSON.stringify(trial.scores.map((score) => [score.scorer, score.score]))).toBe(
        passes,
      );
      const folder = await readRunFolder(trial.output_dir as string);
      // The trial's own run id names the folder (the recording's run was elsewhere).
      expect(folder.runId).toMatch(/^replayed-steps-t1-/);
      expect(trial.output_dir).toBe(join(root, "out", "test-output", folder.runId));
      expect(folder.result?.origin).toBe("cassette");
      expect(folder.manifest?.case?.id).toBe("steps");

      const graded = spawnSync(process.execPath, [evalsCli, "grade", trial.output_dir as string, "--json"], {
        encoding: "utf8",
        env: { ...process.env, FORCE_COLOR: "0" },
      });
      expect(graded.stderr).toBe("");
      const report = JSON.parse(graded.stdout) as {
        passed: boolean;
        score: number;
        verdicts: { evaluator: string; score: number; ok: boolean }[];
      };
      expect(graded.status).toBe(outcome.passed ? 0 : 1);
      expect(report.passed).toBe(outcome.passed);
      expect(
        report.verdicts.map(({ evaluator, score, ok }) => ({ scorer: evaluator, score, passed: ok })),
      ).toEqual(trial.scores.map(({ scorer, score, passed }) => ({ scorer, score, passed })));
      // The case's score is the trial's: the mean of the same scorers' scores (several scorers here,
      // one of them below the threshold, so a scorer left out or counted twice changes it).
      expect(trial.scores.length).toBeGreaterThan(3);
      expect(new Set(trial.scores.map((score) => score.score)).size).toBeGreaterThan(1);
      expect(report.score).toBe(trialScore(trial));
      expect(report.score).toBe(outcome.result.stats?.mean_score);
    },
  );
});
