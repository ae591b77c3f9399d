import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ResultsComparisonSchema } from "@evals/logging";
import { runFixtureSuites } from "@evals/test-kit/vitest-fixture";
import { afterAll, describe, expect, it } from "vitest";

const fixtureDir = fileURLToPath(new URL("./__fixtures__/baseline/", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "describe-baseline-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs the fixture suite under vitest: each test's state, errors and meta, and what it logged. */
async function runSuite(mode: "record" | "strict") {
  const logs: string[] = [];
  const tests = await runFixtureSuites({
    root: fixtureDir,
    include: ["describe.fixture.ts"],
    reporters: [{ onUserConsoleLog: (log: { content: string }) => void logs.push(log.content) }],
    // The mode is given: with CI=true (as on CI) auto would be strict and refuse to record.
    env: { EVALS_TEST_OUTPUT_ROOT: scratch, VCR_MODE: mode },
    testTimeout: 120_000,
  });
  return { tests, logs: logs.join("") };
}

/** The trials' run folders of a case (`<suite>-<case>[-<variant>]-t<n>-…`). */
function runFolders(prefix: string): string[] {
  return readdirSync(join(scratch, "test-output")).filter((name) =>
    new RegExp(`^${prefix}-t\\d+-`).test(name),
  );
}

describe("describeCases with a baseline", () => {
  it("runs the baseline beside the suite and compares it with the suite's own runs, not a second run of them", async () => {
    // The first run records, the second replays the recordings.
    for (const [pass, mode] of [
      [1, "record"],
      [2, "strict"],
    ] as const) {
      const { tests, logs } = await runSuite(mode);
      expect([...tests.keys()]).toEqual([
        "notes baseline > lists-the-notes",
        "notes baseline > names-the-notes",
        "notes baseline › plain > lists-the-notes",
      ]);
      const suiteCase = tests.get("notes baseline > lists-the-notes")!;
      if (suiteCase.state === "skipped") return; // no working claude here
      expect(suiteCase.errors, mode).toEqual([]);
      expect(suiteCase.meta.evalCase).toMatchObject({ suite: "notes baseline", status: "passed" });
      expect(tests.get("notes baseline > names-the-notes")!.state).toBe("passed");
      // The baseline did not pass its case, which fails no test but goes to the reports under its name.
      const plain = tests.get("notes baseline › plain > lists-the-notes")!;
      expect(plain.state).toBe("passed");
      expect(plain.meta.evalCase).toMatchObject({ suite: "notes baseline › plain" });
      expect((plain.meta.evalCase as { status: string }).status).not.toBe("passed");

      // Each case ran its two trials once: the comparison's house-rule side is the suite's own runs.
      expect(runFolders("notes-baseline-lists-the-notes")).toHaveLength(2 * pass);
      expect(runFolders("notes-baseline-lists-the-notes-plain")).toHaveLength(2 * pass);
      expect(runFolders("notes-baseline-names-the-notes")).toHaveLength(2 * pass);

      expect(logs).toContain("notes baseline: plain vs house-rule");
      expect(logs).toMatch(
        /overall \(1 case\)\s+0\/2 0% \[0–66\]\s+2\/2 100% \[34–100\]\s+\+100% \[\+7…\+100\]\s+better/,
      );
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
      expect(comparison.cases.map((c) => [c.suite, c.id])).toEqual([["notes baseline", "lists-the-notes"]]);
      expect([comparison.a.label, comparison.b.label]).toEqual(["plain", "house-rule"]);
    }
    const recordings = readdirSync(join(scratch, "cassettes", "notes-baseline")).sort();
    expect(recordings.map((name) => name.split(".").slice(0, -3).join("."))).toEqual([
      "lists-the-notes",
      "lists-the-notes.plain",
      "names-the-notes",
    ]);
  }, 600_000);

  it("refuses a baseline naming a case the suite does not have, naming it and the suite's cases", async () => {
    const errors: string[] = [];
    await runFixtureSuites({
      root: fixtureDir,
      include: ["unknown-case.fixture.ts"],
      reporters: [
        {
          onTestModuleEnd: (module: { errors(): { message: string }[] }) =>
            void errors.push(...module.errors().map((error) => error.message)),
        } as never,
      ],
      env: { EVALS_TEST_OUTPUT_ROOT: scratch },
    });
    expect(errors.join("\n")).toContain(
      'describeCases "notes baseline typo": baseline.cases names "lists-the-note", not a case of the suite (its cases: lists-the-notes)',
    );
  });
});
