import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { claudeCodeRunner, skipIfNoClaude } from "@evals/claude-code";
import { readRunFolder } from "@evals/core";
import { type EvalCase, parseCase, scorersForCase } from "@evals/evaluators";
import { type CaseSettings, evaluateCase, scoreTrial } from "@evals/harness";
import type { CaseResult } from "@evals/logging";
import { countToolResults, reply, scripted, startModelServer, text, toolUse } from "@evals/vcr";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** The real claude CLI installed at the workspace root (2.1.330), and the built `evals` CLI. */
const claudeBin = resolve(__dirname, "../../../node_modules/.bin/claude");
const evalsCli = resolve(__dirname, "../dist/cli.js");

/**
 * One recording, replayed by the real CLI REAL_REPLAYS times (CONCURRENT at a time: the agent only
 * reads, so the replays cannot disturb each other), each checked against the recorded run's verdict.
 * Each replayed run folder is also read back and scored again GRADINGS_PER_REPLAY times, as the
 * harness does, and every CLI_GRADE_EVERY-th one graded by `evals grade`.
 */
const REAL_REPLAYS = 100;
const CONCURRENT = 4;
const GRADINGS_PER_REPLAY = 10;
const CLI_GRADE_EVERY = 10;

let root: string;
let project: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "harness-determinism-"));
  project = join(root, "project");
  mkdirSync(project);
  writeFileSync(join(project, "a.txt"), "hello from a\n");
  writeFileSync(join(project, "b.txt"), "hello from b\n");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Lists, reads a.txt and b.txt, then reports: it changes nothing, so replays can run side by side. */
const script = () =>
  scripted((request) => {
    switch (countToolResults(request)) {
      case 0:
        return reply(text("Listing."), toolUse("Bash", { command: "ls", description: "list files" }));
      case 1:
        return reply(toolUse("Read", { file_path: `${project}/a.txt` }));
      case 2:
        return reply(toolUse("Read", { file_path: `${project}/b.txt` }));
      default:
        return reply(text("Done: both files say hello."));
    }
  });

/** A mixed verdict (some scorers pass, some fail, with violations), so a change would show. */
const evalCase = (): EvalCase =>
  parseCase({
    id: "write-report",
    prompt: "List the files, read a.txt and b.txt, and report.",
    behavior: { mustUseTools: ["Bash", "Read"], expectedResponse: { contains: "Done" } },
    expectedTrajectory: { mode: "strict", calls: ["Bash", "Read", "Edit"] },
    threshold: 0.9,
  });

/** A trial's verdict without what differs by design between runs (run id, folder, timings). */
function verdictOf(result: CaseResult, message: string | undefined) {
  const trial = result.trials[0]!;
  const unnamed = (value: string | undefined) =>
    value
      ?.replaceAll(trial.output_dir ?? "(no folder)", "<run folder>")
      .replaceAll(trial.run_id ?? "(no run id)", "<run id>");
  return {
    status: trial.status,
    scores: trial.scores,
    violations: trial.violations,
    error: unnamed(trial.error),
    message: unnamed(message),
  };
}

describe("replaying one recording gives the same verdict every time (real claude CLI)", () => {
  it(`${REAL_REPLAYS} real replays of one recording, each graded ${GRADINGS_PER_REPLAY} times: the same scores, violations, messages and pass/fail, and evals grade agrees`, async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    const dir = join(root, "cassettes");
    const settings: CaseSettings<EvalCase> = {
      suite: "determinism",
      task: (_case, { runAgent }) =>
        runAgent(
          { prompt: evalCase().prompt as string, options: { claudeBin }, cwd: project, keepSandbox: "never" },
          claudeCodeRunner,
        ),
      scorers: scorersForCase(evalCase()),
      threshold: 0.9,
      outputRoot: join(root, "out"),
    };
    const upstream = await startModelServer({ source: script() });
    let recorded: Awaited<ReturnType<typeof evaluateCase>>;
    try {
      recorded = await evaluateCase(evalCase(), 0, {
        ...settings,
        cassette: { mode: "record", dir, upstream: upstream.url },
      });
    } finally {
      await upstream.close();
    }
    const expected = verdictOf(recorded.result, recorded.message);
    // A mixed verdict with violations and a message: something that could change.
    expect(expected.status).toBe("failed");
    expect(expected.scores.some((score) => score.passed)).toBe(true);
    expect(expected.scores.some((score) => !score.passed)).toBe(true);
    expect(expected.violations.length).toBeGreaterThan(0);
    expect(expected.message).toContain("trajectory");

    // The replays, CONCURRENT at a time, in order of their number.
    const replays: Awaited<ReturnType<typeof evaluateCase>>[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENT }, async () => {
        while (next < REAL_REPLAYS) {
          const number = next++;
          replays[number] = await evaluateCase(evalCase(), 0, {
            ...settings,
            cassette: { mode: "strict", dir },
          });
        }
      }),
    );
    expect(replays).toHaveLength(REAL_REPLAYS);

    for (const [replay, replayed] of replays.entries()) {
      const trial = replayed.result.trials[0]!;
      expect(trial.origin, `replay ${replay + 1}`).toBe("replay");
      expect(verdictOf(replayed.result, replayed.message), `replay ${replay + 1}`).toEqual(expected);

      // The run folder, read back and graded again and again, gives the same scores.
      const outputDir = trial.output_dir as string;
      for (let grading = 0; grading < GRADINGS_PER_REPLAY; grading++) {
        const folder = await readRunFolder(outputDir);
        const scores = await scoreTrial(
          scorersForCase(evalCase()),
          { result: folder.result!, case: evalCase() },
          0.9,
        );
        expect(
          scores.verdicts.map(({ scorer, score, passed, threshold }) => ({
            scorer,
            score,
            passed,
            ...(threshold !== undefined ? { threshold } : {}),
          })),
        ).toEqual(expected.scores);
        expect(
          scores.verdicts.flatMap((verdict) =>
            verdict.result.violations.map((violation) => ({
              ...violation,
              scorer: verdict.scorer,
              trial: 0,
            })),
          ),
        ).toEqual(expected.violations);
        expect(scores.passed).toBe(false);
      }

      // `evals grade` on the run folder gives the harness's verdict.
      if (replay % CLI_GRADE_EVERY !== 0) continue;
      const graded = spawnSync(process.execPath, [evalsCli, "grade", outputDir, "--json"], {
        encoding: "utf8",
        timeout: 60_000,
        env: { ...process.env, FORCE_COLOR: "0" },
      });
      expect(graded.stderr).toBe("");
      expect(graded.status).toBe(1);
      const report = JSON.parse(graded.stdout) as {
        passed: boolean;
        verdicts: { evaluator: string; score: number; ok: boolean }[];
      };
      expect(report.passed).toBe(false);
      expect(
        report.verdicts.map(({ evaluator, score, ok }) => ({ scorer: evaluator, score, passed: ok })),
      ).toEqual(expected.scores.map(({ scorer, score, passed }) => ({ scorer, score, passed })));
    }
  }, 900_000);
});
