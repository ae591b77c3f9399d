import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildResults, type CaseStatus, type ResultsFile } from "@evals/logging";
import {
  compareStoredRuns,
  findBaselineRun,
  findFlakyCases,
  formatFlaky,
  githubReport,
  latestRun,
  type Store,
} from "@evals/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKENDS, openStore } from "./backends.js";
import { sampleCase } from "./sample-results.js";

const COMMIT_MAIN = "1111111111111111111111111111111111111111";
const COMMIT_BRANCH = "2222222222222222222222222222222222222222";

/** A run of cases c0, c1…: statuses[i] for every trial of case c<i>, `trials` trials each. */
function run(
  statuses: CaseStatus[],
  minute: number,
  meta: Partial<ResultsFile["meta"]> = {},
  trials = 1,
): ResultsFile {
  const finished = new Date(Date.UTC(2026, 10, 20, 10, minute));
  return buildResults(
    statuses.map((status, i) => sampleCase(`c${i}`, status, trials)),
    {
      suite: "sample",
      startedAt: new Date(finished.getTime() - 30_000),
      finishedAt: finished,
      meta: { git_commit: COMMIT_MAIN, git_branch: "main", git_dirty: false, ...meta },
    },
  );
}

/** A project folder with the cases' file (cases/sample.yaml); each run's results go in <project>/results. */
function project(content: string): { dir: string; files: { dir: string } } {
  const dir = mkdtempSync(join(tmpdir(), "evals-insights-project-"));
  mkdirSync(join(dir, "cases"));
  writeFileSync(join(dir, "cases", "sample.yaml"), content);
  return { dir, files: { dir: join(dir, "results") } };
}

const CASES_FILE = "id: c0\nprompt: read a.ts\n---\nid: c1\nprompt: read b.ts\n";

describe.each(BACKENDS)("flaky cases and baselines on $name", (backend) => {
  let env: Awaited<ReturnType<(typeof backend)["setUp"]>>;
  const folders: string[] = [];
  beforeAll(async () => {
    env = await backend.setUp();
  }, 180_000);
  afterAll(async () => {
    await env?.tearDown();
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  });

  async function withStore<T>(work: (store: Store) => Promise<T>): Promise<T> {
    const store = await openStore(await env.db());
    try {
      return await work(store);
    } finally {
      await store.close();
    }
  }

  it("a case whose verdict differs across runs of the same case file is flaky, with its runs, trials and first divergent step", async () => {
    const { dir, files } = project(CASES_FILE);
    folders.push(dir);
    await withStore(async (store) => {
      const first = await store.record(run(["passed", "passed"], 1), "run", files);
      const second = await store.record(run(["failed", "passed"], 2), "run", files);
      const flaky = await findFlakyCases(store);
      expect(flaky).toHaveLength(1);
      expect(flaky[0]).toMatchObject({
        suite: "sample",
        case_id: "c0",
        origin: "replayed",
        agent_cli: "claude-code",
        agent_version: "2.1.330",
        passed: 1,
        failed: 1,
        runs: [
          { run_id: first.runId, passed_trials: [0], failed_trials: [] },
          { run_id: second.runId, passed_trials: [], failed_trials: [0] },
        ],
        divergence: {
          step: 0,
          a: { tool: "Read", input: { file_path: "a.ts" } },
          b: { tool: "Edit", input: { file_path: "a.ts" } },
          passing: { run_id: first.runId, trial: 0 },
          failing: { run_id: second.runId, trial: 0 },
        },
      });
      const text = formatFlaky(flaky);
      expect(text).toContain("sample › c0: flaky, 1 trial(s) passed and 1 failed over 2 run(s)");
      expect(text).toContain(`run ${second.runId}`);
      expect(text).toContain(
        `diverges at step 1: failing run ${second.runId} trial 0 called Edit {"file_path":"a.ts"}, passing run ${first.runId} trial 0 called Read {"file_path":"a.ts"}`,
      );
    });
  });

  it("is not fooled: the same verdicts replayed, a changed case file, an errored trial, live against replayed", async () => {
    const { dir, files } = project(CASES_FILE);
    folders.push(dir);
    await withStore(async (store) => {
      // Replayed runs with the same verdicts every time are never flaky.
      for (let minute = 1; minute <= 3; minute++)
        await store.record(run(["passed", "failed"], minute), "run", files);
      expect(await findFlakyCases(store)).toEqual([]);
      // c1 passes after its case file changed: a change, not flakiness.
      writeFileSync(join(dir, "cases", "sample.yaml"), `${CASES_FILE}# c1 fixed\n`);
      await store.record(run(["passed", "passed"], 4), "run", files);
      // An infrastructure error is no verdict.
      await store.record(run(["passed", "error"], 5), "run", files);
      expect(await findFlakyCases(store)).toEqual([]);
      // A live run that fails is not compared with the replayed ones that passed.
      const live = run(["failed", "passed"], 6);
      for (const trial of live.cases[0]!.trials) trial.origin = "live";
      await store.record(live, "run", files);
      expect(await findFlakyCases(store)).toEqual([]);
    });
  });

  it("compares a branch's run with main's: the planted regression, its interval, first step and deltas; refuses incomparable runs", async () => {
    const { dir, files } = project(CASES_FILE);
    folders.push(dir);
    await withStore(async (store) => {
      const main = await store.record(run(["passed", "passed"], 1, {}, 3), "run", files);
      const branch = await store.record(
        run(["failed", "passed"], 2, { git_branch: "feature", git_commit: COMMIT_BRANCH }, 3),
        "run",
        files,
      );
      expect((await latestRun(store))?.id).toBe(branch.runId);
      expect((await findBaselineRun(store, "main", { exclude: branch.runId }))?.id).toBe(main.runId);
      expect((await findBaselineRun(store, COMMIT_MAIN.slice(0, 8)))?.id).toBe(main.runId);
      expect((await findBaselineRun(store, main.runId.slice(0, 10)))?.id).toBe(main.runId);
      expect(await findBaselineRun(store, "no-such-branch")).toBeUndefined();

      const comparison = await compareStoredRuns(store, main.runId, branch.runId);
      expect(comparison.incomparable).toEqual([]);
      expect(comparison.a.git_branch).toBe("main");
      expect(comparison.b.git_branch).toBe("feature");
      const [c0, c1] = comparison.cases;
      expect(c0).toMatchObject({
        case_id: "c0",
        file: "cases/sample.yaml",
        a: { passed: 3, trials: 3 },
        b: { passed: 0, trials: 3 },
        change: "regressed",
        flipped: true,
        divergence: { step: 0, a: { tool: "Read" }, b: { tool: "Edit" } },
        deltas: { tokens: 0, turns: 0, tool_calls: 0, duration_ms: 0 },
      });
      expect(c0!.difference.difference).toBe(-1);
      expect(c0!.difference.ci_high).toBeLessThan(0);
      expect(c1).toMatchObject({ case_id: "c1", change: "within noise", flipped: false });
      expect(c1!.divergence).toBeUndefined();
      expect(comparison.overall).toMatchObject({ a: { passed: 6, trials: 6 }, b: { passed: 3, trials: 6 } });

      // Another agent version is not comparable.
      const newer = run(["passed", "passed"], 3, {}, 3);
      for (const c of newer.cases) for (const trial of c.trials) trial.run!.claude_version = "2.2.0";
      const other = await store.record(newer, "run", files);
      const refused = await compareStoredRuns(store, main.runId, other.runId);
      expect(refused.incomparable).toEqual(["the agent CLI version (A 2.1.330, B 2.2.0)"]);
    });
  });

  it("writes the GitHub job summary, an ::error annotation on the regressed case's line, and the PR comment", async () => {
    const { dir, files } = project(CASES_FILE);
    folders.push(dir);
    await withStore(async (store) => {
      const main = await store.record(run(["passed", "passed"], 1, {}, 3), "run", files);
      const branch = await store.record(
        run(["failed", "passed"], 2, { git_branch: "feature", git_commit: COMMIT_BRANCH }, 3),
        "run",
        files,
      );
      const report = githubReport(await compareStoredRuns(store, main.runId, branch.runId), { root: dir });
      expect(report.summary).toContain("**1 case(s) regressed beyond noise**");
      expect(report.summary).toMatch(
        /\| sample › c0 \| 3\/3 \| 0\/3 \| −100% \(−100% to −\d+\.\d%\) \| \*\*regressed\*\* \| step 1: Read → Edit \|/,
      );
      expect(report.summary).toContain("| sample › c1 | 3/3 | 3/3 | ±0% ");
      expect(report.annotations.trimEnd().split("\n")).toEqual([
        expect.stringMatching(
          /^::error file=cases\/sample\.yaml,line=1,title=regressed%3A sample › c0::sample › c0 regressed against the baseline: 3\/3 → 0\/3 passed/,
        ),
      ]);
      expect(report.comment).toContain("- **sample › c0**: 3/3 → 0/3 passed");
      // c1's id is on line 4 of the file: its annotation would point there.
      const c1Failing = await store.record(
        run(["passed", "failed"], 3, { git_branch: "feature", git_commit: COMMIT_BRANCH }, 3),
        "run",
        files,
      );
      const second = githubReport(await compareStoredRuns(store, main.runId, c1Failing.runId), { root: dir });
      expect(second.annotations).toMatch(/^::error file=cases\/sample\.yaml,line=4,/);
    });
  });
});
