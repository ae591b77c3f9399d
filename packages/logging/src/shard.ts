import { join } from "node:path";

/** One shard of a run split across machines: the 1-based `index` of `count`. */
export interface Shard {
  index: number;
  count: number;
}

/** The environment variable that names this machine's shard of every eval suite: `EVALS_SHARD=2/3`. */
export const SHARD_ENV = "EVALS_SHARD";

/**
 * Parses `i/n` (1 ≤ i ≤ n), as vitest's `--shard` writes it. Throws an error that names `where`
 * (e.g. "--shard" or "EVALS_SHARD") and what is wrong.
 */
export function parseShard(text: string, where = "shard"): Shard {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (!match) throw new Error(`${where} must be <index>/<count>, e.g. 2/3, got ${JSON.stringify(text)}`);
  const index = Number(match[1]);
  const count = Number(match[2]);
  if (count < 1) throw new Error(`${where}: the count must be at least 1, got ${text}`);
  if (index < 1 || index > count)
    throw new Error(`${where}: the index must be between 1 and ${count}, got ${text}`);
  return { index, count };
}

/**
 * The key under which CaseShardSequencer hands `vitest --shard`'s `i/n` to the test files
 * (`inject(SHARD_PROVIDE_KEY)` in a test file).
 */
export const SHARD_PROVIDE_KEY = "evalsShard";

/** This machine's shard from EVALS_SHARD, or undefined when it is not set (or empty). */
export function shardFromEnv(env: NodeJS.ProcessEnv = process.env): Shard | undefined {
  const value = env[SHARD_ENV];
  return value === undefined || value.trim() === "" ? undefined : parseShard(value, SHARD_ENV);
}

/** `2/3`, the way the shard is written everywhere. */
export function formatShard(shard: Shard): string {
  return `${shard.index}/${shard.count}`;
}

/**
 * Where a shard writes its results: `<dir>/shard-<i>-of-<n>`, so shards that share a checkout (or
 * an artifact folder) never overwrite each other's latest.json; `evals merge <dir>/shard-*` joins them.
 */
export function shardResultsDir(dir: string, shard: Shard): string {
  return join(dir, `shard-${shard.index}-of-${shard.count}`);
}
