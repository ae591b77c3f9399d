import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { EvalReporter, mergeShardResults, readResults, writeReports } from "@evals/logging";
import { CaseShardSequencer } from "@evals/logging/reporter";
import { afterAll, describe, expect, it } from "vitest";
import { startVitest } from "vitest/node";
import { casesInShard, shardsOfCases } from "../src/index.js";
import { comparableHtml, comparableJson, comparableJunit } from "./comparable-reports.js";
import { runFixtureSuites } from "./vitest-fixture.js";

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

describe("EVALS_SHARD with describeCases under variants", () => {
  const variantsProject = fileURLToPath(new URL("./__fixtures__/shards-variants/", import.meta.url));

  it("runs a case's two variants on the same shard, so each shard compares whole cases", async () => {
    const ranOn = new Map<string, number[]>();
    for (const index of [1, 2, 3]) {
      const tests = await runFixtureSuites({
        root: variantsProject,
        include: ["*.fixture.ts"],
        env: { EVALS_SHARD: `${index}/3`, EVALS_OUTPUT_DIR: join(scratch, "variant-runs") },
      });
      for (const [name, test] of tests) {
        if (test.state !== "skipped") ranOn.set(name, [...(ranOn.get(name) ?? []), index]);
      }
    }
    // Every case of every variant ran once, and each case's A and B on the same shard.
    expect(ranOn.size).toBe(18);
    for (const shards of ranOn.values()) expect(shards).toHaveLength(1);
    for (let n = 1; n <= 9; n++) {
      const plain = ranOn.get(`notes variants > plain > case-${n}`);
      expect(plain, `case-${n}`).toEqual(ranOn.get(`notes variants > house-rule > case-${n}`));
    }
    // Each shard's comparison holds the cases it ran, under both variants.
    const compared = [1, 2, 3].flatMap((index) => {
      const file = join(scratch, "variant-runs", `comparison-${index}-of-3`, "comparison.json");
      const comparison = JSON.parse(readFileSync(file, "utf8")) as { cases: { id: string }[] };
      return comparison.cases.map((c) => c.id);
    });
    expect(compared.sort()).toEqual(Array.from({ length: 9 }, (_, n) => `case-${n + 1}`).sort());
  }, 240_000);
});
