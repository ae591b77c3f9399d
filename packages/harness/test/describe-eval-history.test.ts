import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { caseHistory, RECORD_QUEUE_ENV, recordQueuedRuns, Store } from "@evals/store";
import { RecordingReporter } from "@evals/store/reporter";
import { runFixtureSuites } from "@evals/test-kit/vitest-fixture";
import { afterAll, describe, expect, it } from "vitest";

/** Both vitest runs of suites.fixture.ts are recorded whole, with uses-bash passing in each. */
async function expectTwoWholeRuns(store: Store): Promise<void> {
  expect(await store.sql.query("SELECT source, complete FROM runs")).toEqual([
    { source: "vitest", complete: true },
    { source: "vitest", complete: true },
  ]);
  const bash = (await caseHistory(store)).find(
    (c) => c.suite === "basics" && c.case_id.includes("uses-bash"),
  );
  expect(bash?.runs.map((r) => [r.status, r.passed_trials, r.trial_count])).toEqual([
    ["passed", 2, 2],
    ["passed", 2, 2],
  ]);
}

const fixtureDir = fileURLToPath(new URL("./__fixtures__/describe-eval/", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "harness-eval-history-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("describeEval suites under @evals/store's reporter (npm run eval)", () => {
  it("records each vitest run in the results database, once per run, with every suite's cases", async () => {
    const db = join(scratch, "db");
    for (let run = 0; run < 2; run++) {
      const reporter = new RecordingReporter({
        outputDir: join(scratch, "results"),
        db,
        stream: new PassThrough(),
      });
      await runFixtureSuites({ root: fixtureDir, include: ["suites.fixture.ts"], reporters: [reporter] });
    }
    const store = await Store.open({ kind: "embedded", dir: db });
    try {
      await expectTwoWholeRuns(store);
      const [read] = await store.sql.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM violations v JOIN cases c USING (run_id, position) WHERE c.name = 'uses Read'",
      );
      expect(read?.n).toBe(4);
    } finally {
      await store.close();
    }
  }, 300_000);

  it("under npm run eval (EVALS_RECORD_QUEUE) leaves each run but the database's first to be recorded in one open", async () => {
    const db = join(scratch, "queued-db");
    const queue = mkdtempSync(join(scratch, "queue-"));
    for (let run = 0; run < 2; run++) {
      const reporter = new RecordingReporter({
        outputDir: join(scratch, "queued-results"),
        db,
        env: { [RECORD_QUEUE_ENV]: queue },
        stream: new PassThrough(),
      });
      await runFixtureSuites({ root: fixtureDir, include: ["suites.fixture.ts"], reporters: [reporter] });
    }
    // The first run created the database; the second waits in the queue.
    const recorded = async () => {
      const store = await Store.open({ kind: "embedded", dir: db });
      try {
        return (await store.sql.query<{ n: number }>("SELECT count(*)::int AS n FROM runs"))[0]?.n;
      } finally {
        await store.close();
      }
    };
    expect(await recorded()).toBe(1);
    expect(readdirSync(queue)).toHaveLength(1);
    // What an interrupted `npm run eval` left is recorded by the next one; a run queued twice is added once.
    const [queuedName] = readdirSync(queue);
    const queuedText = readFileSync(join(queue, queuedName as string), "utf8");
    // Owner-only: a server location's URL may hold its password.
    expect(statSync(join(queue, queuedName as string)).mode & 0o777).toBe(0o600);
    // A file that is not a queued run (cut off, or another version's) is set aside with a warning
    // instead of blocking every later npm run eval.
    writeFileSync(join(queue, "0-cut-off.json"), '{"version":1,"loc');
    writeFileSync(join(queue, "0-older.json"), JSON.stringify({ ...JSON.parse(queuedText), version: 0 }));
    const warnings: string[] = [];
    expect(await recordQueuedRuns(queue, { warn: (message) => void warnings.push(message) })).toEqual({
      recorded: 1,
      alreadyRecorded: 0,
      failed: 0,
      rejected: 2,
    });
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain("0-cut-off.json is not a run queued by this @evals/store (not JSON");
    expect(warnings[1]).toContain("(version 0, this one reads 1)");
    expect(warnings[1]).toContain("evals history import");
    expect(readdirSync(queue)).toEqual(["rejected"]);
    expect(readdirSync(join(queue, "rejected")).sort()).toEqual(["0-cut-off.json", "0-older.json"]);
    writeFileSync(join(queue, queuedName as string), queuedText);
    expect(await recordQueuedRuns(queue)).toEqual({
      recorded: 0,
      alreadyRecorded: 1,
      failed: 0,
      rejected: 0,
    });
    expect(readdirSync(queue)).toEqual(["rejected"]);
    expect(await recorded()).toBe(2);
    const store = await Store.open({ kind: "embedded", dir: db });
    try {
      await expectTwoWholeRuns(store);
    } finally {
      await store.close();
    }
  }, 300_000);
});
