import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { claudeAvailable } from "@evals/claude-code";
import { startPostgres } from "@evals/test-kit/postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/exit-codes.js";

const claudeBin = resolve(__dirname, "../../../node_modules/.bin/claude");
const cliJs = resolve(__dirname, "../dist/cli.js");
const findTodos = resolve(__dirname, "../../../examples/find-todos");
const envVerdict = resolve(__dirname, "__fixtures__/rules/env-verdict.mjs");
const FLIP = "EVALS_TEST_FLIP";

/**
 * A git repository holding the find-todos example (its cases, recordings and fixture), the
 * skill-then-grep case also judged by the env-verdict rule; `evals` and `git` run in it.
 */
function makeProject() {
  const dir = mkdtempSync(join(tmpdir(), "harness-insights-"));
  for (const part of ["cases", "cassettes", "__fixtures__"])
    cpSync(join(findTodos, part), join(dir, part), { recursive: true });
  const casesFile = join(dir, "cases", "find-todos.yaml");
  const cases = readFileSync(casesFile, "utf8").replace(
    "id: skill-then-grep\n",
    `id: skill-then-grep\nrules:\n  env-verdict: { variable: ${FLIP} }\n`,
  );
  writeFileSync(casesFile, cases);
  const git = (...args: string[]) => {
    const result = spawnSync("git", args, { cwd: dir, encoding: "utf8" });
    if (result.status !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
  };
  git("init", "-q", "-b", "main");
  git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "root");
  git("add", "-A");
  git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "find-todos");
  return { dir, casesFile, git };
}

const backends = [
  {
    name: "embedded (PGlite)",
    start: async () => ({ db: (dir: string) => join(dir, "db"), stop: async () => {} }),
  },
  {
    name: "PostgreSQL server",
    start: async () => {
      const server = await startPostgres();
      return { db: () => server.url, stop: () => server.stop() };
    },
  },
];

describe.skipIf(!claudeAvailable({ claudeBin }).available).each(backends)(
  "flaky cases and baselines on the real CLI, recorded in $name",
  (backend) => {
    let project: ReturnType<typeof makeProject>;
    let db: string;
    let stop: () => Promise<void>;
    beforeAll(async () => {
      project = makeProject();
      const started = await backend.start();
      db = started.db(project.dir);
      stop = started.stop;
    }, 180_000);
    afterAll(async () => {
      await stop?.();
      if (project) rmSync(project.dir, { recursive: true, force: true });
    });

    /** The built `evals` binary in the project. */
    function evals(args: string[], env: Record<string, string> = {}) {
      const result = spawnSync(process.execPath, [cliJs, ...args], {
        cwd: project.dir,
        encoding: "utf8",
        timeout: 400_000,
        env: {
          ...process.env,
          EVALS_CLAUDE_BIN: claudeBin,
          EVALS_OUTPUT_DIR: project.dir,
          FORCE_COLOR: "0",
          GITHUB_STEP_SUMMARY: "",
          ...env,
        },
      });
      return { code: result.status, out: result.stdout, err: result.stderr };
    }
    /** `evals run` of the project's cases, replayed strictly from the recordings. */
    const replay = (trials: number, env: Record<string, string> = {}) =>
      evals(
        [
          ...["--rules", envVerdict, "run", "cases/find-todos.yaml", "--cassettes", "cassettes"],
          // The example's recordings were made under its describeCases suite.
          ...["--suite", "find-todos", "--mode", "strict", "--trials", String(trials), "--db", db],
        ],
        env,
      );

    it("a regression planted on a branch: evals compare --baseline main reports it (text, GitHub summary, annotation, PR comment) and exits 1", () => {
      const onMain = replay(3);
      expect(onMain.code, onMain.out + onMain.err).toBe(EXIT.passed);
      // On a branch, the skill-then-grep case now rejects an answer naming src/cart.js: its replays fail.
      project.git("checkout", "-q", "-b", "feature");
      const cases = readFileSync(project.casesFile, "utf8");
      writeFileSync(
        project.casesFile,
        cases.replace("notContains: src/format.js", "notContains: src/cart.js"),
      );
      project.git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "stricter");
      const onBranch = replay(3);
      expect(onBranch.code, onBranch.out).toBe(EXIT.failed);

      const text = evals(["compare", "--baseline", "main", "--db", db]);
      expect(text.err).toBe("");
      expect(text.code).toBe(EXIT.failed);
      expect(text.out).toMatch(/^A \(baseline main\): [0-9a-f]{12} main @ [0-9a-f]{12} /);
      expect(text.out).toMatch(/\nB \(this run\): +[0-9a-f]{12} feature @ /);
      expect(text.out).toMatch(
        /\nfind-todos › skill-then-grep: 3\/3 -> 0\/3 {2}B − A -100% \[-100%, -\d+\.\d%\] {2}regressed/,
      );
      expect(text.out).toContain(
        "flipped; same tool calls in both runs (the case or its rules changed, not the trajectory)",
      );
      expect(text.out).toMatch(
        /\nfind-todos › grep-in-bash: 3\/3 -> 3\/3 {2}B − A ±0% \[.*\] {2}within noise {2}\(cost \+\$0\.0000, tokens \+0, turns \+0\.0, time [+-]/,
      );
      expect(text.out).toMatch(/\noverall: 6\/6 -> 3\/6 {2}B − A -50% /);
      expect(evals(["compare", "--baseline", "main", "--db", db, "--fail-on", "none"]).code).toBe(
        EXIT.passed,
      );

      const github = evals([
        ...["compare", "--baseline", "main", "--db", db, "--format", "github"],
        ...["--summary-file", "summary.md", "--comment-file", "comment.md"],
      ]);
      expect(github.code).toBe(EXIT.failed);
      expect(github.out.trimEnd().split("\n")).toEqual([
        expect.stringMatching(
          /^::error file=cases\/find-todos\.yaml,line=5,title=regressed%3A find-todos › skill-then-grep::find-todos › skill-then-grep regressed against the baseline: 3\/3 → 0\/3 passed, B − A −100%25 \(95%25 interval −100%25 to −\d+\.\d%25\)$/,
        ),
      ]);
      const summary = readFileSync(join(project.dir, "summary.md"), "utf8");
      expect(summary).toContain("**1 case(s) regressed beyond noise**");
      expect(summary).toMatch(
        /\| find-todos › skill-then-grep \| 3\/3 \| 0\/3 \| −100% .* \| \*\*regressed\*\* \| same calls \|/,
      );
      expect(summary).toMatch(
        /Baseline `[0-9a-f]{12}` \(main @ [0-9a-f]{12}\) → this run `[0-9a-f]{12}` \(feature @ /,
      );
      const comment = readFileSync(join(project.dir, "comment.md"), "utf8");
      expect(comment).toContain("- **find-todos › skill-then-grep**: 3/3 → 0/3 passed");

      // In GitHub Actions the summary is added to the job's summary file.
      writeFileSync(join(project.dir, "step-summary.md"), "earlier step\n");
      const inActions = evals(["compare", "--baseline", "main", "--db", db, "--format", "github"], {
        GITHUB_STEP_SUMMARY: join(project.dir, "step-summary.md"),
      });
      expect(inActions.code).toBe(EXIT.failed);
      expect(readFileSync(join(project.dir, "step-summary.md"), "utf8")).toBe(`earlier step\n${summary}`);
      expect(readFileSync(join(project.dir, "evals-pr-comment.md"), "utf8")).toBe(comment);
    }, 900_000);

    it("refuses what it cannot do, naming why: no such baseline, GitHub output with nowhere to go, options without --baseline", () => {
      const none = evals(["compare", "--baseline", "release-9", "--db", db]);
      expect(none.code).toBe(EXIT.badInput);
      expect(none.err).toContain("no recorded run of the baseline release-9");
      const nowhere = evals(["compare", "--baseline", "main", "--db", db, "--format", "github"]);
      expect(nowhere.code).toBe(EXIT.badInput);
      expect(nowhere.err).toContain(
        "GITHUB_STEP_SUMMARY is not set (outside GitHub Actions): name a file with --summary-file <file>",
      );
      const stray = evals(["compare", "a.json", "b.json", "--fail-on", "none"]);
      expect(stray.code).toBe(EXIT.badInput);
      expect(stray.err).toContain("--fail-on goes with --baseline <branch|commit|run id>");
    }, 120_000);

    it("replayed runs with the same verdicts are not flaky; a replayed case whose verdict differs run to run is listed with its evidence", () => {
      project.git("checkout", "-q", "main");
      // Three replays of each case on main already (the first test): the same verdicts, nothing flaky.
      const stable = evals(["history", "--flaky", "--db", db]);
      expect(stable.err).toBe("");
      expect(stable.out).toBe(
        "No flaky cases: every case's verdict was the same across its recorded runs.\n",
      );
      // The same case file, the same recording; the rule's environment differs: the verdict does too.
      const flipped = replay(1, { [FLIP]: "1" });
      expect(flipped.code, flipped.out).toBe(EXIT.failed);
      const shown = evals(["history", "--flaky", "--db", db]);
      expect(shown.code).toBe(EXIT.passed);
      const lines = shown.out.trimEnd().split("\n");
      expect(lines[0]).toMatch(
        /^find-todos › skill-then-grep: flaky, 3 trial\(s\) passed and 1 failed over 2 run\(s\) of the same case file \([0-9a-f]{16}\), replayed from cassettes\/find-todos\/skill-then-grep\.[0-9a-f]{8}\.recording\.json, claude-code 2\.1\.330 claude-opus-5-5$/,
      );
      expect(lines[1]).toMatch(/^ {2}run [0-9a-f]{32} \(.*, [0-9a-f]{12}\): passed trial 0, 1, 2$/);
      expect(lines[2]).toMatch(/^ {2}run [0-9a-f]{32} \(.*, [0-9a-f]{12}\): failed trial 0$/);
      expect(lines[3]).toContain("same trajectory in passing and failing trials");
      expect(lines).toHaveLength(4);
      const json = JSON.parse(evals(["history", "--flaky", "--db", db, "--json"]).out);
      expect(json.flaky).toHaveLength(1);
      expect(json.flaky[0]).toMatchObject({
        case_id: "skill-then-grep",
        origin: "replayed",
        passed: 3,
        failed: 1,
      });
    }, 600_000);
  },
);
