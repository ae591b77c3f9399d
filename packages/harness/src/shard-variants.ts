import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import {
  buildResults,
  compareResults,
  mergeShardResults,
  type ResultsComparison,
  ResultsComparisonSchema,
  type RunComparisonFolder,
  readResults,
  runComparisonFolders,
  ShardMergeError,
  type ShardResults,
} from "@evals/logging";
import type { VariantReport } from "./variants.js";

/** A suite's comparison put back together from the variants folders of a run's shards. */
export interface MergedComparison {
  /** Its folder's name (`variants/<name>/`: the suite's slug). */
  name: string;
  /** A (the baseline) then B: each variant's results, every shard's cases in the whole run's order. */
  runs: [VariantReport, VariantReport];
  /** compareResults of the merged results, labelled with the variants' names. */
  comparison: ResultsComparison;
}

/**
 * The comparisons of a sharded run's suites under two variants (describeCases' `variants`,
 * `evals run --variants`), as one machine would have written them. Each shard writes its share next
 * to its results (`<shard folder>/variants/<suite>/`: each variant's results and comparison.json);
 * here, per suite, each variant's results are joined across the shards that ran some of its cases
 * (mergeShardResults: a shard that ran none has no folder) and compared again (compareResults).
 * Only folders written since their shard's run started count. By folder name. Throws a
 * ShardMergeError naming the files when the shards compare different variants (or a folder is
 * another shard's), and a ResultsFileError for a variant's results file that cannot be read.
 */
export function mergeShardComparisons(shards: readonly ShardResults[]): MergedComparison[] {
  const bySuite = new Map<string, { shard: ShardResults; folder: RunComparisonFolder }[]>();
  for (const shard of shards) {
    const since = new Date(shard.results.meta.started_at);
    for (const folder of runComparisonFolders(dirname(shard.source), since)) {
      bySuite.set(folder.name, [...(bySuite.get(folder.name) ?? []), { shard, folder }]);
    }
  }
  return [...bySuite.keys()].sort().map((name) => mergeSuite(name, bySuite.get(name)!));
}

function mergeSuite(
  name: string,
  folders: { shard: ShardResults; folder: RunComparisonFolder }[],
): MergedComparison {
  const labelled = folders.map((item) => ({ ...item, labels: labelsOf(item.folder.file) }));
  const first = labelled[0]!;
  for (const item of labelled) {
    if (item.labels.join("\0") !== first.labels.join("\0"))
      throw new ShardMergeError(
        `${item.folder.file} compares ${item.labels[1]} against ${item.labels[0]}, ${first.folder.file} ${first.labels[1]} against ${first.labels[0]}: the shards of one run compare the same two variants`,
      );
  }
  const [a, b] = first.labels.map((label): VariantReport => {
    const parts = labelled.map(({ shard, folder }) => {
      const source = join(folder.dir, `${label}.json`);
      const results = readResults(source);
      const own = shard.results.meta.shard;
      const its = results.meta.shard;
      if (!its || its.index !== own?.index || its.count !== own.count)
        throw new ShardMergeError(
          `${source} (field meta.shard): ${its ? `the results of shard ${its.index}/${its.count}` : "not the results of a shard"}, in the folder of shard ${own?.index}/${own?.count} (${shard.source})`,
        );
      return { results, source };
    });
    const merged = mergeShardResults(parts, { complete: false });
    const variant = parts[0]!.results.meta.variant;
    const results = buildResults(merged.cases, {
      ...merged.buildOptions,
      meta: { ...merged.buildOptions.meta, ...(variant ? { variant } : {}) },
    });
    return { variant: { name: label, ...(variant?.gated === false ? { mustPass: false } : {}) }, results };
  }) as [VariantReport, VariantReport];
  const comparison = compareResults(a.results, b.results, { labels: [a.variant.name, b.variant.name] });
  return { name, runs: [a, b], comparison };
}

/** The variants' names a comparison.json compares: A's, then B's. */
function labelsOf(file: string): [string, string] {
  let comparison: ResultsComparison;
  try {
    comparison = ResultsComparisonSchema.parse(JSON.parse(readFileSync(file, "utf8")));
  } catch (error) {
    throw new ShardMergeError(`${file}: not a comparison: ${(error as Error).message.split("\n")[0]}`);
  }
  return [comparison.a.label, comparison.b.label];
}
