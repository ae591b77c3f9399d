import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ResultsComparisonSchema } from "@evals/logging";
import { Store } from "@evals/store";
import { RecordingReporter } from "@evals/store/reporter";
import { runFixtureSuites } from "@evals/test-kit/vitest-fixture";
import { afterAll, describe, expect, it } from "vitest";
import type { Reporter } from "vitest/node";

const fixtureDir = fileURLToPath(new URL("./__fixtures__/describe-variants/", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "describe-variants-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs the fixture suite under vitest: each test's state, errors and meta, and what it logged. */
async function runSuite(mode: "record" | "strict") {
  const logs: string[] = [];
  const tests = await runFixtureSuites({
    root: fixtureDir,
    include: ["variants.fixture.ts"],
    reporters: [
      { onUserConsoleLog: (log: { content: string }) => void logs.push(log.content) },
      // The eval reports and the results database, as `npm run eval` writes them.
      new RecordingReporter({ outputDir: join(scratch, "results"), db: join(scratch, "db") }) as Reporter,
    ],
    // The mode is given: with CI=true (as on CI) auto would be strict and refuse to record.
    env: { EVALS_TEST_OUTPUT_ROOT: scratch, VCR_MODE: mode },
    testTimeout: 120_000,
  });
  return { tests, logs: logs.join("") };
}

describe("describeCases with variants", () => {
  it("runs every case under both variants, gates only B, and prints and writes the comparison", async () => {
    // The first run records each variant, the second replays the recordings.
    for (const pass of ["record", "replay"]) {
      const { tests, logs } = await runSuite(pass === "record" ? "record" : "strict");
      expect([...tests.keys()]).toEqual([
        "notes variants > plain > lists-the-notes",
        "notes variants > house-rule > lists-the-notes",
      ]);
      const plain = tests.get("notes variants > plain > lists-the-notes")!;
      const rule = tests.get("notes variants > house-rule > lists-the-notes")!;
      if (rule.state === "skipped") return; // no working claude here
      expect(rule.errors, pass).toEqual([]);
      expect(rule.state).toBe("passed");
      expect(rule.meta.evalCase).toMatchObject({ suite: "notes variants › house-rule", status: "passed" });
      // The baseline did not pass its case, which fails no test but goes to the reports under its variant.
      expect(plain.state).toBe("passed");
      const baseline = plain.meta.evalCase as { suite: string; status: string; trials: { error?: string }[] };
      expect(baseline.suite).toBe("notes variants › plain");
      expect(baseline.status, JSON.stringify(baseline.trials.map((t) => t.error))).not.toBe("passed");

      expect(logs).toContain("notes variants: plain vs house-rule");
      expect(logs).toMatch(
        /overall \(1 case\)\s+0\/2 0% \[0–66\]\s+2\/2 100% \[34–100\]\s+\+100% \[\+7…\+100\]\s+better/,
      );
      expect(logs).toContain("house-rule passes more often than plain");
      const dir = join(scratch, "comparison");
      expect(readdirSync(dir).sort()).toEqual([
        "comparison.html",
        "comparison.json",
        "house-rule.json",
        "plain.json",
      ]);
      const comparison = ResultsComparisonSchema.parse(
        JSON.parse(readFileSync(join(dir, "comparison.json"), "utf8")),
      );
      expect(comparison.cases.map((c) => [c.suite, c.id])).toEqual([["notes variants", "lists-the-notes"]]);
      expect(comparison.overall.b.trials).toBe(2);
    }
    // Both runs are in the results database, each with the baseline's case (and its variant) too.
    const store = await Store.open({ kind: "embedded", dir: join(scratch, "db") });
    try {
      expect(
        await store.sql.query(
          `SELECT suite, case_id, count(*)::int AS runs, count(*) FILTER (WHERE status = 'passed')::int AS passed
           FROM cases GROUP BY 1, 2 ORDER BY 1`,
        ),
      ).toEqual([
        { suite: "notes variants › house-rule", case_id: "lists-the-notes", runs: 2, passed: 2 },
        { suite: "notes variants › plain", case_id: "lists-the-notes", runs: 2, passed: 0 },
      ]);
    } finally {
      await store.close();
    }
    const recordings = readdirSync(join(scratch, "cassettes", "notes-variants")).sort();
    expect(recordings).toHaveLength(2);
    expect(recordings[0]).toMatch(/^lists-the-notes\.house-rule\./);
    expect(existsSync(join(scratch, "cassettes", "notes-variants", recordings[1]!))).toBe(true);
  }, 600_000);
});
