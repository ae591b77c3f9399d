import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  type CaseResult,
  mergeShardResults,
  parseShard,
  readResults,
  ShardMergeError,
  type ShardResults,
  shardFromEnv,
  writeReports,
} from "../src/index.js";
import { demoCases } from "./demo-results.js";

const scratch = mkdtempSync(join(tmpdir(), "logging-merge-shards-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const meta = { git_commit: "abc123", git_branch: "main", node_version: "v20.20.2", platform: "linux-x64" };

/** Writes the cases the way `count` machines would, each the cases at positions ≡ index-1 (mod count). */
function writeShards(cases: CaseResult[], count: number, name: string): ShardResults[] {
  return Array.from({ length: count }, (_, n) => {
    const positions = cases.map((_c, position) => position).filter((position) => position % count === n);
    const dir = join(scratch, name, `shard-${n + 1}`);
    writeReports(
      positions.map((position) => cases[position]!),
      {
        dir,
        startedAt: `2026-01-14T09:00:0${n}.000Z`,
        finishedAt: `2026-01-14T09:01:0${n}.000Z`,
        includeRuns: "all",
        meta: { ...meta, shard: { index: n + 1, count, positions } },
      },
    );
    return { results: readResults(join(dir, "latest.json")), source: `${name}/shard-${n + 1}/latest.json` };
  });
}

const read = (file: string) => readFileSync(file, "utf8");

describe("mergeShardResults", () => {
  const cases = demoCases();

  it("gives the reports one machine writes for the same cases: JSON, JUnit and HTML equal byte for byte", () => {
    expect(cases.length).toBeGreaterThanOrEqual(3);
    const single = writeReports(cases, {
      dir: join(scratch, "single"),
      startedAt: "2026-01-14T09:00:00.000Z",
      finishedAt: "2026-01-14T09:01:02.000Z",
      meta,
    });
    // Shards handed in out of order still merge in the whole run's order.
    const merged = mergeShardResults(writeShards(cases, 3, "three").reverse());
    expect(merged.shards).toBe(3);
    const written = writeReports(merged.cases, { dir: join(scratch, "merged"), ...merged.buildOptions });
    expect(read(written.files.latest)).toBe(read(single.files.latest));
    expect(read(written.files.history)).toBe(read(single.files.history));
    expect(basename(written.files.history)).toBe(basename(single.files.history));
    expect(read(written.files.junit!)).toBe(read(single.files.junit!));
    expect(read(written.files.html!)).toBe(read(single.files.html!));
    expect(written.results.meta.shard).toBeUndefined();
  });

  it("names each shard's history file after its shard, so shards sharing a folder never collide", () => {
    const shards = writeShards(cases, 2, "names");
    expect(shards.map((shard) => shard.results.meta.shard?.index)).toEqual([1, 2]);
    const dir = join(scratch, "shared-history");
    const files = shards.map(
      (shard) =>
        writeReports(shard.results.cases, { dir, includeRuns: "all", meta: shard.results.meta }).files
          .history,
    );
    expect(files.map((file) => basename(file))).toEqual([
      expect.stringMatching(/-shard-1-of-2\.json$/),
      expect.stringMatching(/-shard-2-of-2\.json$/),
    ]);
  });

  it("refuses a missing shard, a shard given twice, shards of different runs, and a file that is no shard", () => {
    const shards = writeShards(cases, 3, "bad");
    expect(() => mergeShardResults(shards.slice(0, 2))).toThrow("shard 3/3 missing");
    expect(() => mergeShardResults([...shards, shards[1]!])).toThrow(/are both shard 2\/3/);
    const other = writeShards(cases, 2, "other");
    expect(() => mergeShardResults([shards[0]!, other[1]!])).toThrow(/run in 2 shards/);
    const plain = { ...shards[0]!, results: { ...shards[0]!.results, meta: { ...meta } } } as ShardResults;
    plain.results.meta = { ...shards[0]!.results.meta, shard: undefined };
    expect(() => mergeShardResults([plain])).toThrow(ShardMergeError);
    expect(() => mergeShardResults([plain])).toThrow("(field meta.shard): not the results of a shard");
    const commit = structuredClone(shards[2]!);
    commit.results.meta.git_commit = "def456";
    expect(() => mergeShardResults([shards[0]!, shards[1]!, commit])).toThrow(/at commit def456/);
  });

  it("with complete: false, merges the shards that hold cases, the absent ones taken to have held none", () => {
    const shards = writeShards(cases, 3, "partial");
    const merged = mergeShardResults([shards[2]!, shards[0]!], { complete: false });
    const kept = [0, 2].flatMap((n) => shards[n]!.results.meta.shard!.positions).sort((a, b) => a - b);
    expect(merged.cases.map((c) => c.id)).toEqual(kept.map((position) => cases[position]!.id));
    expect(merged.shards).toBe(3);
    expect(() => mergeShardResults([shards[0]!, shards[0]!], { complete: false })).toThrow(/both shard 1\/3/);
  });

  it("refuses a shard that dropped its passed cases' runs (the merged HTML needs every timeline)", () => {
    const shards = writeShards(cases, 2, "runs");
    const dropped = structuredClone(shards[1]!);
    dropped.results.meta.runs_included = "failed";
    expect(() => mergeShardResults([shards[0]!, dropped])).toThrow(/runs_included.*includeRuns "all"/);
  });

  it("refuses two shards that claim the same position", () => {
    const shards = writeShards(cases, 2, "overlap");
    const clash = structuredClone(shards[1]!);
    clash.results.meta.shard!.positions[0] = shards[0]!.results.meta.shard!.positions[0]!;
    expect(() => mergeShardResults([shards[0]!, clash])).toThrow(/both hold the case at position 0/);
  });
});

describe("parseShard and EVALS_SHARD", () => {
  it("reads i/n and says what is wrong with anything else", () => {
    expect(parseShard("2/3")).toEqual({ index: 2, count: 3 });
    expect(() => parseShard("0/3", "--shard")).toThrow("--shard: the index must be between 1 and 3, got 0/3");
    expect(() => parseShard("4/3")).toThrow("between 1 and 3");
    expect(() => parseShard("two", "--shard")).toThrow(
      '--shard must be <index>/<count>, e.g. 2/3, got "two"',
    );
    expect(shardFromEnv({ EVALS_SHARD: "1/2" })).toEqual({ index: 1, count: 2 });
    expect(shardFromEnv({})).toBeUndefined();
    expect(() => shardFromEnv({ EVALS_SHARD: "3" })).toThrow("EVALS_SHARD must be <index>/<count>");
  });
});
