import type { BuildResultsOptions } from "./build-results.js";
import type { CaseResult } from "./case-result.js";
import type { ResultsFile, ResultsMeta } from "./results-file.js";

/** One shard's results file and where it came from (named in errors). */
export interface ShardResults {
  results: ResultsFile;
  /** The file it was read from, or another name for it. */
  source: string;
}

/** The shards put back together: the whole run's cases, in order, and how to build its results. */
export interface MergedShards {
  cases: CaseResult[];
  /** How many shards were merged. */
  shards: number;
  /**
   * For buildResults / writeReports: the earliest start and latest finish of the shards, and the
   * meta the machines share (commit, branch, Node, platform, CI). The rest (suites, models,
   * origins, tallies) is computed from the cases, as on one machine.
   */
  buildOptions: BuildResultsOptions;
}

/** Options of mergeShardResults. */
export interface MergeShardsOptions {
  /**
   * false: the shards given may be only some of the run's, the absent ones having held none of
   * these cases (a suite's variants folder, which only the shards that ran its cases write).
   * Default true: every shard, each once.
   */
  complete?: boolean;
}

/** A set of shard results that cannot be merged: says which file and why. */
export class ShardMergeError extends Error {
  override readonly name = "ShardMergeError";
}

/**
 * Puts the results files of every shard of one run back together. Each file must be a shard's
 * (`meta.shard`), all of the same count, every index once, with every trial's run kept
 * (`runs_included: "all"`, so the HTML report keeps every timeline), from the same commit. The cases
 * come back in the order the whole run had. `writeReports(merged.cases, { ...merged.buildOptions, dir })`
 * then writes the JSON history, the JUnit file and the HTML report one machine would have written
 * for the same cases (timing apart).
 */
export function mergeShardResults(
  shards: readonly ShardResults[],
  options: MergeShardsOptions = {},
): MergedShards {
  if (shards.length === 0) throw new ShardMergeError("no shard results to merge");
  const count = shardOf(shards[0]!).count;
  const byIndex = new Map<number, ShardResults>();
  for (const item of shards) {
    const shard = shardOf(item);
    if (shard.count !== count)
      throw new ShardMergeError(
        `${item.source}: shard ${shard.index}/${shard.count} is of a run in ${shard.count} shards, ${shards[0]!.source} of one in ${count}`,
      );
    const seen = byIndex.get(shard.index);
    if (seen)
      throw new ShardMergeError(`${item.source} and ${seen.source} are both shard ${shard.index}/${count}`);
    if (shard.positions.length !== item.results.cases.length)
      throw new ShardMergeError(
        `${item.source} (field meta.shard.positions): ${shard.positions.length} positions for ${item.results.cases.length} cases`,
      );
    if (item.results.meta.runs_included !== "all")
      throw new ShardMergeError(
        `${item.source} (field meta.runs_included): the shard kept the runs of "${item.results.meta.runs_included}" cases, and the merged HTML report needs every trial's run: write shard results with includeRuns "all" (evals run --shard does)`,
      );
    byIndex.set(shard.index, item);
  }
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((index) => !byIndex.has(index));
  if (missing.length > 0 && options.complete !== false)
    throw new ShardMergeError(
      `shard${missing.length === 1 ? "" : "s"} ${missing.map((index) => `${index}/${count}`).join(", ")} missing: merge the results of all ${count} shards`,
    );
  const first = [...byIndex.entries()].sort(([a], [b]) => a - b)[0]![1];
  for (const item of byIndex.values()) {
    const commit = item.results.meta.git_commit;
    if (commit !== first.results.meta.git_commit)
      throw new ShardMergeError(
        `${item.source} ran at commit ${commit ?? "(none)"}, ${first.source} at ${first.results.meta.git_commit ?? "(none)"}: the shards of one run test the same commit`,
      );
  }

  const placed = new Map<number, { item: ShardResults; value: CaseResult }>();
  for (const item of byIndex.values()) {
    item.results.cases.forEach((value, n) => {
      const position = shardOf(item).positions[n]!;
      const other = placed.get(position);
      if (other)
        throw new ShardMergeError(
          `${item.source} (case "${value.id}") and ${other.item.source} (case "${other.value.id}") both hold the case at position ${position}`,
        );
      placed.set(position, { item, value });
    });
  }
  const cases = [...placed.entries()].sort(([a], [b]) => a - b).map(([, { value }]) => value);

  const all = [...byIndex.values()].map((item) => item.results.meta);
  const startedAt = all.map((meta) => meta.started_at).sort()[0]!;
  const finishedAt = all
    .map((meta) => meta.finished_at)
    .sort()
    .at(-1)!;
  const shared: Partial<ResultsMeta> = {};
  const { meta } = first.results;
  for (const key of ["git_commit", "git_branch", "git_dirty", "node_version", "platform", "ci"] as const) {
    if (meta[key] !== undefined) (shared as Record<string, unknown>)[key] = meta[key];
  }
  return {
    cases,
    shards: count,
    buildOptions: { startedAt, finishedAt, meta: shared },
  };
}

function shardOf(item: ShardResults): NonNullable<ResultsMeta["shard"]> {
  const shard = item.results.meta.shard;
  if (!shard)
    throw new ShardMergeError(
      `${item.source} (field meta.shard): not the results of a shard (run it with evals run --shard i/n, or EVALS_SHARD=i/n)`,
    );
  return shard;
}
