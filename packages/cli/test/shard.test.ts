import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { casesInShard, shardsOfCases } from "@evals/harness";
import { EvalReporter, mergeShardResults, readResults, writeReports } from "@evals/logging";
import { CaseShardSequencer } from "@evals/logging/reporter";
import { runFixtureSuites } from "@evals/test-kit/vitest-fixture";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startVitest } from "vitest/node";
import { EXIT } from "../src/exit-codes.js";
import { evalsCommand, runInProcess } from "./command-io.js";
import { comparableHtml, comparableJson, comparableJunit } from "./comparable-reports.js";

describe("shardsOfCases", () => {
  const keys = Array.from({ length: 50 }, (_, n) => `case-${n}`);

  it("puts every case on exactly one shard, the shards' counts differing by at most one", () => {
    for (const count of [1, 2, 3, 7]) {
      const shards = shardsOfCases("suite", keys, count);
      expect(shards.every((index) => index >= 1 && index <= count)).toBe(true);
      const sizes = Array.from({ length: count }, (_, n) => shards.filter((index) => index === n + 1).length);
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      for (let index = 1; index <= count; index++) {
        expect(casesInShard("suite", keys, { index, count })).toEqual(shards.map((s) => s === index));
      }
    }
  });

  it("depends on the cases, not on their order, and differs from suite to suite", () => {
    const shards = shardsOfCases("suite", keys, 3);
    const reversed = shardsOfCases("suite", [...keys].reverse(), 3).reverse();
    expect(reversed).toEqual(shards);
    expect(shardsOfCases("another suite", keys, 3)).not.toEqual(shards);
  });

  it("spreads suites of one case over the shards instead of putting them all on shard 1", () => {
    const suites = Array.from({ length: 30 }, (_, n) => `suite-${n}`);
    const used = new Set(suites.map((suite) => shardsOfCases(suite, ["only"], 3)[0]));
    expect(used).toEqual(new Set([1, 2, 3]));
  });

  it("deals repeated ids apart", () => {
    expect(new Set(shardsOfCases("suite", ["same", "same", "same"], 3))).toEqual(new Set([1, 2, 3]));
  });
});

/*
 * describeEval under vitest with EVALS_SHARD, and @evals/logging's reporter: the fixture project's
 * two files (three suites, 12 cases, some failing) run once whole and once as three shards, each
 * shard in its own vitest run with its own results folder; merged, the reports are the whole run's.
 */
const project = fileURLToPath(new URL("./__fixtures__/shards/", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "harness-shards-vitest-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function runProject(
  out: string,
  shard?: string,
  by: "EVALS_SHARD" | "vitest --shard" = "EVALS_SHARD",
): Promise<Map<string, string | undefined>> {
  const env = shard && by === "EVALS_SHARD" ? { EVALS_SHARD: shard } : {};
  const vitestShard =
    shard && by === "vitest --shard"
      ? { shard, sequence: { sequencer: CaseShardSequencer }, passWithNoTests: true }
      : {};
  const reporter = new EvalReporter({
    outputDir: join(scratch, out),
    stream: new PassThrough() as unknown as NodeJS.WriteStream,
    caseLines: false,
    env: { ...process.env, EVALS_SHARD: by === "EVALS_SHARD" ? (shard ?? "") : "" },
  });
  const vitest = await startVitest(
    "test",
    [],
    {
      root: project,
      config: false,
      include: ["*.fixture.ts"],
      watch: false,
      reporters: [reporter],
      env: { ...env, EVALS_OUTPUT_DIR: join(scratch, "runs") },
      ...vitestShard,
    },
    { logLevel: "silent" },
  );
  const states = new Map<string, string | undefined>();
  try {
    for (const module of vitest.state.getTestModules()) {
      for (const test of module.children.allTests()) states.set(test.fullName, test.result().state);
    }
  } finally {
    await vitest.close();
  }
  return states;
}

const read = (path: string) => readFileSync(join(scratch, path), "utf8");

describe("EVALS_SHARD with describeEval and the vitest reporter", () => {
  it("runs each case on one shard only; merged, the shards' reports are the whole run's", async () => {
    const whole = await runProject("whole");
    const shards = [];
    // One results folder for the three: each shard writes into its own shard-<i>-of-3 in it.
    for (const index of [1, 2, 3]) shards.push(await runProject("sharded", `${index}/3`));

    const ran = (states: Map<string, string | undefined>) =>
      [...states].filter(([, state]) => state !== "skipped").map(([name]) => name);
    expect(ran(whole)).toHaveLength(12);
    const byShard = shards.map(ran);
    expect(byShard.flat().sort()).toEqual(ran(whole).sort());
    for (const [n, names] of byShard.entries()) {
      expect(names.length).toBeGreaterThan(0);
      // The other shards' cases are declared, skipped, and say where they run.
      const skipped = [...shards[n]!].filter(([, state]) => state === "skipped").map(([name]) => name);
      expect(skipped).toHaveLength(12 - names.length);
      for (const name of skipped) expect(name).toMatch(/\(shard [123]\/3\)$/);
      expect(skipped.some((name) => name.endsWith(`(shard ${n + 1}/3)`))).toBe(false);
    }

    const files = [1, 2, 3].map((index) => {
      const source = join(scratch, "sharded", `shard-${index}-of-3`, "latest.json");
      return { results: readResults(source), source };
    });
    const merged = mergeShardResults(files);
    const written = writeReports(merged.cases, { dir: join(scratch, "merged"), ...merged.buildOptions });
    expect(written.results.summary).toMatchObject({ total: 12, failed: 4 });
    expect(comparableJson(read("merged/latest.json"))).toEqual(comparableJson(read("whole/latest.json")));
    expect(comparableJunit(read("merged/junit.xml"))).toBe(comparableJunit(read("whole/junit.xml")));
    expect(comparableHtml(read("merged/report.html"))).toEqual(comparableHtml(read("whole/report.html")));
  }, 240_000);

  it("vitest --shard with CaseShardSequencer shards the cases the same way, every file on every shard", async () => {
    const byEnv = await runProject("by-env", "2/3");
    const byVitest = await runProject("by-vitest", "2/3", "vitest --shard");
    // The same tests in the same states (vitest may finish the files in another order).
    const sorted = (states: Map<string, string | undefined>) =>
      [...states].sort(([a], [b]) => a.localeCompare(b));
    expect(sorted(byVitest)).toEqual(sorted(byEnv));
    expect([...byVitest.values()].filter((state) => state !== "skipped").length).toBeGreaterThan(0);
    const results = readResults(join(scratch, "by-vitest", "shard-2-of-3", "latest.json"));
    expect(results.meta.shard).toEqual(
      readResults(join(scratch, "by-env", "shard-2-of-3", "latest.json")).meta.shard,
    );
    expect(comparableJson(read("by-vitest/shard-2-of-3/latest.json"))).toEqual(
      comparableJson(read("by-env/shard-2-of-3/latest.json")),
    );
  }, 240_000);
});

/*
 * describeCases under variants (the shards-variants project: "notes variants", 9 cases, and "solo
 * variants", 2, each under plain and house-rule) run once whole and once as three shards, all three
 * in one folder as on one machine, each in vitest with the reporter; then `evals merge`.
 */
describe("EVALS_SHARD with describeCases under variants", () => {
  const variantsProject = fileURLToPath(new URL("./__fixtures__/shards-variants/", import.meta.url));
  const whole = join(scratch, "variants-whole");
  const sharded = join(scratch, "variants-sharded");
  let wholeStates: Map<string, string | undefined>;
  const shardStates: Map<string, string | undefined>[] = [];

  /** The project run in `cwd`, where describeCases and the reporter write by default (`<cwd>/results`). */
  async function runVariants(cwd: string, shard?: string): Promise<Map<string, string | undefined>> {
    mkdirSync(cwd, { recursive: true });
    const reporter = new EvalReporter({
      outputDir: join(cwd, "results"),
      stream: new PassThrough() as unknown as NodeJS.WriteStream,
      caseLines: false,
      env: { ...process.env, EVALS_SHARD: shard ?? "" },
    });
    const tests = await inFolder(cwd, () =>
      runFixtureSuites({
        root: variantsProject,
        include: ["*.fixture.ts"],
        reporters: [reporter],
        env: { EVALS_SHARD: shard ?? "", EVALS_OUTPUT_DIR: join(scratch, "variant-runs") },
      }),
    );
    return new Map([...tests].map(([name, test]) => [name, test.state]));
  }

  /** `evals merge` run from `cwd`, as the runs were (the same checkout, or here none: no git info). */
  const mergeIn = (cwd: string, args: string[]) =>
    inFolder(cwd, () => runInProcess(evalsCommand("merge"), args));

  beforeAll(async () => {
    wholeStates = await runVariants(whole);
    for (const index of [1, 2, 3]) shardStates.push(await runVariants(sharded, `${index}/3`));
  }, 240_000);

  const variantsOf = (results: string, suite: string) => join(results, "variants", suite);
  const shardFolder = (index: number) => join(sharded, "results", `shard-${index}-of-3`);

  it("runs a case's two variants on the same shard, so each shard compares whole cases", () => {
    const ranOn = new Map<string, number[]>();
    shardStates.forEach((states, n) => {
      for (const [name, state] of states) {
        if (state !== "skipped") ranOn.set(name, [...(ranOn.get(name) ?? []), n + 1]);
      }
    });
    // Every case of every variant ran once (as in the whole run), and each case's A and B on the same shard.
    expect([...wholeStates.values()].filter((state) => state === "passed")).toHaveLength(22);
    expect(ranOn.size).toBe(22);
    for (const shards of ranOn.values()) expect(shards).toHaveLength(1);
    for (let n = 1; n <= 9; n++) {
      const plain = ranOn.get(`notes variants > plain > case-${n}`);
      expect(plain, `case-${n}`).toEqual(ranOn.get(`notes variants > house-rule > case-${n}`));
    }
    // Each shard's comparison, next to its results, holds the cases it ran, under both variants.
    const compared = [1, 2, 3].flatMap((index) => {
      const file = join(variantsOf(shardFolder(index), "notes-variants"), "comparison.json");
      const comparison = JSON.parse(readFileSync(file, "utf8")) as { cases: { id: string }[] };
      return comparison.cases.map((c) => c.id);
    });
    expect(compared.sort()).toEqual(Array.from({ length: 9 }, (_, n) => `case-${n + 1}`).sort());
    // Unsharded, the comparison stays where it always was; sharded, none lands there.
    expect(existsSync(join(variantsOf(join(whole, "results"), "notes-variants"), "comparison.json"))).toBe(
      true,
    );
    expect(existsSync(join(sharded, "results", "variants"))).toBe(false);
  });

  it("evals merge joins the shards' comparisons: the whole run's variants folders and report, timing apart", async () => {
    // The solo suite's two cases left one shard without them, and without its folder.
    const withSolo = [1, 2, 3].filter((index) => existsSync(variantsOf(shardFolder(index), "solo-variants")));
    expect(withSolo.length).toBeGreaterThan(0);
    expect(withSolo.length).toBeLessThan(3);

    const merged = await mergeIn(sharded, [
      ...[3, 1, 2].map(shardFolder),
      "--out",
      join(scratch, "variants-merged"),
    ]);
    expect(merged.err).toBe("");
    expect(merged.code).toBe(EXIT.passed);
    expect(merged.out).toContain("variants/notes-variants/comparison.json");
    const wholeResults = join(whole, "results");
    const mergedResults = join(scratch, "variants-merged");
    for (const suite of ["notes-variants", "solo-variants"]) {
      for (const file of ["comparison.json", "plain.json", "house-rule.json"]) {
        expect(
          comparableJson(readFileSync(join(variantsOf(mergedResults, suite), file), "utf8")),
          `${suite}/${file}`,
        ).toEqual(comparableJson(readFileSync(join(variantsOf(wholeResults, suite), file), "utf8")));
      }
      expect(
        comparableHtml(readFileSync(join(variantsOf(mergedResults, suite), "comparison.html"), "utf8")),
      ).toEqual(
        comparableHtml(readFileSync(join(variantsOf(wholeResults, suite), "comparison.html"), "utf8")),
      );
    }
    const comparison = JSON.parse(
      readFileSync(join(variantsOf(mergedResults, "notes-variants"), "comparison.json"), "utf8"),
    );
    expect(comparison.cases).toHaveLength(9);
    expect(comparison.overall.b.trials).toBe(9);
    expect(comparableJson(readFileSync(join(mergedResults, "latest.json"), "utf8"))).toEqual(
      comparableJson(readFileSync(join(wholeResults, "latest.json"), "utf8")),
    );
    const report = readFileSync(join(mergedResults, "report.html"), "utf8");
    expect(report.match(/Comparison: house-rule against plain/g)).toHaveLength(2);
    expect(comparableHtml(report)).toEqual(
      comparableHtml(readFileSync(join(wholeResults, "report.html"), "utf8")),
    );
  });

  it("evals merge leaves out a variants folder an earlier run left in a shard's folder", async () => {
    const copy = join(scratch, "variants-stale");
    cpSync(join(sharded, "results"), copy, { recursive: true });
    const stale = join(copy, "shard-1-of-3", "variants", "old-suite");
    cpSync(join(copy, "shard-1-of-3", "variants", "notes-variants"), stale, { recursive: true });
    for (const file of ["comparison.json", "plain.json", "house-rule.json"])
      utimesSync(join(stale, file), new Date("2026-01-01"), new Date("2026-01-01"));
    const merged = await mergeIn(sharded, [
      ...[1, 2, 3].map((index) => join(copy, `shard-${index}-of-3`)),
      "--out",
      join(scratch, "variants-stale-merged"),
    ]);
    expect(merged.err).toBe("");
    expect(merged.code).toBe(EXIT.passed);
    expect(existsSync(join(scratch, "variants-stale-merged", "variants", "notes-variants"))).toBe(true);
    expect(existsSync(join(scratch, "variants-stale-merged", "variants", "old-suite"))).toBe(false);
  });

  it("evals merge refuses shards whose variants folder compares other variants, naming the files", async () => {
    const copy = join(scratch, "variants-renamed");
    cpSync(join(sharded, "results"), copy, { recursive: true });
    const file = join(copy, "shard-2-of-3", "variants", "notes-variants", "comparison.json");
    const comparison = JSON.parse(readFileSync(file, "utf8"));
    comparison.b.label = "another-rule";
    writeFileSync(file, JSON.stringify(comparison));
    const merged = await mergeIn(sharded, [
      ...[1, 2, 3].map((index) => join(copy, `shard-${index}-of-3`)),
      "--out",
      join(scratch, "variants-renamed-merged"),
    ]);
    expect(merged.code).toBe(EXIT.badInput);
    expect(merged.err).toContain(`${file} compares another-rule against plain`);
    expect(merged.err).toContain(join(copy, "shard-1-of-3", "variants", "notes-variants", "comparison.json"));
    expect(merged.err).toContain("compare the same two variants");
  });
});

/** `run` with `cwd` as the current folder (the forks vitest starts inherit it). */
async function inFolder<T>(cwd: string, run: () => Promise<T>): Promise<T> {
  const before = process.cwd();
  process.chdir(cwd);
  try {
    return await run();
  } finally {
    process.chdir(before);
  }
}
