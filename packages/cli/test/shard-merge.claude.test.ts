import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { claudeAvailable } from "@evals/claude-code";
import { readResults } from "@evals/logging";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/exit-codes.js";
import { type CommandRun, evalsCommand, runInProcess } from "./command-io.js";
import { comparableHtml, comparableJson, comparableJunit } from "./comparable-reports.js";

/*
 * The build-failure example's three cases, replayed from their recordings by the real claude CLI:
 * once on one machine, and once split in three shards (`evals run --shard i/3`, here three runs at
 * once in their own results folders) joined by `evals merge`. The merged JSON, JUnit and HTML must
 * be the single machine's, timing and each run's own names (run id, temp folders) apart.
 */
const claudeBin = resolve(__dirname, "../../../node_modules/.bin/claude");
const example = (path: string) =>
  fileURLToPath(new URL(`../../../examples/build-failure/${path}`, import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "harness-shard-merge-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const run = (out: string, ...more: string[]) =>
  runInProcess(evalsCommand("run"), [
    example("cases/build-failure.yaml"),
    "--cassettes",
    example("cassettes"),
    // The example's recordings were made under its describeCases suite.
    "--suite",
    "build-failure",
    "--mode",
    "strict",
    "--out",
    join(scratch, out),
    ...more,
  ]);

const read = (path: string) => readFileSync(join(scratch, path), "utf8");
const shardFile = (index: number) => join(scratch, "sharded", `shard-${index}-of-3`, "latest.json");

describe.skipIf(!claudeAvailable({ claudeBin }).available)("one machine against three shards, merged", () => {
  let single: Awaited<ReturnType<typeof run>>;
  let shards: Awaited<ReturnType<typeof run>>[];
  let merged: CommandRun;
  const previous = { bin: process.env.EVALS_CLAUDE_BIN, out: process.env.EVALS_OUTPUT_DIR };

  beforeAll(async () => {
    process.env.EVALS_CLAUDE_BIN = claudeBin;
    process.env.EVALS_OUTPUT_DIR = join(scratch, "runs");
    try {
      single = await run("single", "--concurrency", "3");
      // All three write under one --out: each into its own shard-<i>-of-3 folder.
      shards = await Promise.all([1, 2, 3].map((index) => run("sharded", "--shard", `${index}/3`)));
      merged = await runInProcess(evalsCommand("merge"), [
        // Out of order, and as folders and files: the merge finds the order itself.
        join(scratch, "sharded", "shard-3-of-3"),
        join(scratch, "sharded", "shard-1-of-3", "latest.json"),
        join(scratch, "sharded", "shard-2-of-3"),
        "--out",
        join(scratch, "merged"),
      ]);
    } finally {
      for (const [name, value] of [
        ["EVALS_CLAUDE_BIN", previous.bin],
        ["EVALS_OUTPUT_DIR", previous.out],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  }, 600_000);

  it("splits the cases: every case on exactly one shard, each shard's file saying which and where", () => {
    expect(single.err).toBe("");
    expect(single.out).toContain("3 case(s), 3 trial(s): 3 passed, 0 failed");
    expect(single.code).toBe(EXIT.passed);
    const files = [1, 2, 3].map((index) => readResults(shardFile(index)));
    for (const [n, shard] of shards.entries()) {
      expect(shard.err).toBe("");
      expect(shard.out).toContain(`(shard ${n + 1}/3)`);
      expect(files[n]!.meta.shard).toMatchObject({ index: n + 1, count: 3 });
      expect(files[n]!.meta.runs_included).toBe("all");
    }
    const ids = files.flatMap((file) => file.cases.map((c) => c.id));
    expect(ids.sort()).toEqual(
      readResults(join(scratch, "single", "latest.json"))
        .cases.map((c) => c.id)
        .sort(),
    );
    expect(files.flatMap((file) => file.meta.shard!.positions).sort()).toEqual([0, 1, 2]);
  });

  it("gives every shard's trials run ids (and so run folders) that name the shard and never collide", () => {
    const trials = [1, 2, 3].flatMap((index) =>
      readResults(shardFile(index)).cases.flatMap((c) => c.trials.map((trial) => ({ index, trial }))),
    );
    for (const { index, trial } of trials) {
      expect(trial.run_id).toContain(`-s${index}of3-`);
      expect(trial.output_dir).toContain(trial.run_id);
    }
    const singleRuns = readResults(join(scratch, "single", "latest.json")).cases.flatMap((c) =>
      c.trials.map((trial) => trial.run_id),
    );
    const all = [...trials.map(({ trial }) => trial.run_id), ...singleRuns];
    expect(new Set(all).size).toBe(all.length);
  });

  it("merges into the single machine's JSON history, JUnit and HTML report, timing apart", () => {
    expect(merged.err).toBe("");
    expect(merged.out).toContain("3 shard(s), 3 case(s), 3 trial(s): 3 passed, 0 failed");
    expect(merged.code).toBe(EXIT.passed);
    expect(comparableJson(read("merged/latest.json"))).toEqual(comparableJson(read("single/latest.json")));
    expect(comparableJunit(read("merged/junit.xml"))).toBe(comparableJunit(read("single/junit.xml")));
    const html = comparableHtml(read("merged/report.html"));
    expect(html).toEqual(comparableHtml(read("single/report.html")));
    // The report carries every trial's timeline, the shards' passed cases' included.
    expect(JSON.stringify(html)).toContain('"timeline"');
  });
});
