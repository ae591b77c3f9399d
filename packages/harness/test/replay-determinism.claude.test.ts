import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { readRunFolder } from "@evals/core";
import { type EvalCase, parseCase, scorersForCase } from "@evals/evaluators";
import type { CaseResult } from "@evals/logging";
import { countToolResults, reply, scripted, startModelServer, text, toolUse } from "@evals/vcr";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CaseSettings, evaluateCase, scoreTrial, skipIfNoClaude } from "../src/index.js";

/** The real claude CLI installed at the workspace root (2.1.330), and the built `evals` CLI. */
const claudeBin = resolve(__dirname, "../../../node_modules/.bin/claude");
const evalsCli = resolve(__dirname, "../dist/cli.js");

/**
 * The split of the repetitions, honestly: one real replayed run of the CLI took 1.5-4 s (about 2 s)
 * on the 2 shared cores here, so 100 of them would take 3-4 minutes of CI. The real CLI replays the
 * recording REAL_REPLAYS times (each checked against the recorded run's verdict); the deterministic
 * grading is what is repeated 100 times per replayed run: its run folder read back and scored again,
 * as the harness does, and `evals grade` once on each folder.
 */
const REAL_REPLAYS = 10;
const GRADINGS_PER_REPLAY = 100;

let root: string;
let project: string;
let written: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "harness-determinism-"));
  project = join(root, "project");
  written = join(root, "written");
  mkdirSync(project);
  mkdirSync(written);
  writeFileSync(join(project, "a.txt"), "hello from a\n");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Lists, reads a.txt, writes a report elsewhere (so the listing stays the same), then reports. */
const script = () =>
  scripted((request) => {
    switch (countToolResults(request)) {
      case 0:
        return reply(text("Listing."), toolUse("Bash", { command: "ls", description: "list files" }));
      case 1:
        return reply(toolUse("Read", { file_path: `${project}/a.txt` }));
      case 2:
        return reply(toolUse("Write", { file_path: `${written}/out.txt`, content: "report\n" }));
      default:
        return reply(text("Done: out.txt written."));
    }
  });

/** A mixed verdict (some scorers pass, some fail, with violations), so a change would show. */
const evalCase = (): EvalCase =>
  parseCase({
    id: "write-report",
    prompt: "List the files, read a.txt and write the report.",
    agent: { permissionMode: "acceptEdits" },
    behavior: { mustUseTools: ["Bash", "Read", "Write"], expectedResponse: { contains: "Done" } },
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
      task: (_case, { runAgent }) => {
        rmSync(join(written, "out.txt"), { force: true });
        return runAgent({
          prompt: evalCase().prompt as string,
          claudeBin,
          cwd: project,
          permissionMode: "acceptEdits",
          keepSandbox: "never",
        });
      },
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

    for (let replay = 0; replay < REAL_REPLAYS; replay++) {
      const replayed = await evaluateCase(evalCase(), 0, { ...settings, cassette: { mode: "strict", dir } });
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
  }, 240_000);
});
