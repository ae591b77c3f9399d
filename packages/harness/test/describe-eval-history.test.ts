import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { caseHistory, Store } from "@evals/store";
import { RecordingReporter } from "@evals/store/reporter";
import { runFixtureSuites } from "@evals/test-kit/vitest-fixture";
import { afterAll, describe, expect, it } from "vitest";

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
      const [read] = await store.sql.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM violations v JOIN cases c USING (run_id, position) WHERE c.name = 'uses Read'",
      );
      expect(read?.n).toBe(4);
    } finally {
      await store.close();
    }
  }, 300_000);
});
