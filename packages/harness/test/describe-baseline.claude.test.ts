import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { EvalReporter, mergeShardResults, ResultsComparisonSchema, readResults } from "@evals/logging";
import { type FixtureTest, runFixtureSuites } from "@evals/test-kit/vitest-fixture";
import { afterAll, describe, expect, it } from "vitest";
import { mergeShardComparisons } from "../src/shard-variants.js";

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

  it("runs in shards: a case's baseline run on the case's shard, named after it, and the shards merge with each case once", async () => {
    // Two shards, run one after the other in one folder (as two machines would each in its own),
    // each in vitest with the reporter, which writes results/shard-<i>-of-2/.
    const cwd = join(scratch, "sharded");
    mkdirSync(cwd, { recursive: true });
    const shards: Map<string, FixtureTest>[] = [];
    for (const index of [1, 2]) {
      const shard = `${index}/2`;
      const reporter = new EvalReporter({
        outputDir: join(cwd, "results"),
        stream: new PassThrough() as unknown as NodeJS.WriteStream,
        caseLines: false,
        env: { ...process.env, EVALS_SHARD: shard },
      });
      shards.push(
        await inFolder(cwd, () =>
          runFixtureSuites({
            root: fixtureDir,
            include: ["sharded.fixture.ts"],
            reporters: [reporter],
            env: { EVALS_TEST_OUTPUT_ROOT: scratch, EVALS_SHARD: shard },
            testTimeout: 120_000,
          }),
        ),
      );
    }
    const declared = [
      "notes baseline shards > lists-the-notes",
      "notes baseline shards > names-the-notes",
      "notes baseline shards › plain > lists-the-notes",
      "notes baseline shards › plain > names-the-notes",
    ];
    // Every shard declares every test (the reporter numbers a case by its place among them)...
    for (const tests of shards)
      expect([...tests.keys()].map((name) => name.replace(/ \(shard \d\/2\)$/, ""))).toEqual(declared);
    if ([...shards[0]!.values()].every((test) => test.state === "skipped")) return; // no working claude here
    // ...and runs one case, and the baseline's run of that same case.
    const ran = shards.map((tests) =>
      [...tests].filter(([, test]) => test.state !== "skipped").map(([name]) => name.split(" > ")[1]),
    );
    for (const names of ran) expect(names).toHaveLength(2);
    for (const names of ran) expect(names[0]).toBe(names[1]);
    expect(ran.map((names) => names[0]).sort()).toEqual(["lists-the-notes", "names-the-notes"]);

    const files = [1, 2].map((index) => join(cwd, "results", `shard-${index}-of-2`, "latest.json"));
    const results = files.map((source) => ({ results: readResults(source), source }));
    // The baseline's runs name their shard, as the suite's do.
    results.forEach(({ results: file }, n) => {
      for (const trial of file.cases.flatMap((c) => c.trials))
        expect(trial.run_id).toContain(`-s${n + 1}of2-`);
    });
    const merged = mergeShardResults(results);
    expect(merged.cases.map((c) => `${c.suite} > ${c.id}`)).toEqual(declared);

    // Each shard compared the case it ran; the merge compares both, as one machine would.
    for (const [n, names] of ran.entries()) {
      const file = join(
        cwd,
        "results",
        `shard-${n + 1}-of-2`,
        "variants",
        "notes-baseline-shards",
        "comparison.json",
      );
      expect(existsSync(file)).toBe(true);
      const comparison = ResultsComparisonSchema.parse(JSON.parse(readFileSync(file, "utf8")));
      expect(comparison.cases.map((c) => c.id)).toEqual([names[0]]);
    }
    const [comparison] = mergeShardComparisons(results);
    expect(comparison!.comparison.cases.map((c) => c.id)).toEqual(["lists-the-notes", "names-the-notes"]);
    expect([comparison!.comparison.a.label, comparison!.comparison.b.label]).toEqual(["plain", "house-rule"]);
    expect([comparison!.comparison.overall.a.passed, comparison!.comparison.overall.b.passed]).toEqual([
      0, 2,
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

/** Runs `run` with `cwd` as the current folder: describeCases writes its comparison under it. */
async function inFolder<T>(cwd: string, run: () => Promise<T>): Promise<T> {
  const before = process.cwd();
  process.chdir(cwd);
  try {
    return await run();
  } finally {
    process.chdir(before);
  }
}
