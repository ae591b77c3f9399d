import { createHash } from "node:crypto";
import type { Shard } from "@evals/logging";

/**
 * Which of a suite's cases run on `shard`: for each key (the case's id), true when it is this
 * shard's. Every machine computes the same split from the same suite and keys, with nothing to
 * coordinate: the cases are ordered by a hash of suite and key and dealt out in turn, starting at a
 * shard chosen by the suite's hash, so a suite's cases spread evenly (their counts differ by at most
 * one) and suites of one case do not all land on shard 1. The split depends on the keys, not on
 * their order; a key repeated within a suite is dealt by its position among its repeats.
 */
export function casesInShard(suite: string, keys: readonly string[], shard: Shard): boolean[] {
  return shardsOfCases(suite, keys, shard.count).map((index) => index === shard.index);
}

/** The shard (1-based) each of a suite's cases falls to, when the run is split in `count` (see casesInShard). */
export function shardsOfCases(suite: string, keys: readonly string[], count: number): number[] {
  if (count === 1) return keys.map(() => 1);
  const repeats = new Map<string, number>();
  const ranked = keys
    .map((key, position) => {
      const repeat = repeats.get(key) ?? 0;
      repeats.set(key, repeat + 1);
      return { position, hash: hashOf(`${suite}\0${key}\0${repeat}`) };
    })
    .sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : a.position - b.position));
  const start = Number.parseInt(hashOf(suite).slice(0, 8), 16) % count;
  const shards = keys.map(() => 0);
  ranked.forEach((item, rank) => {
    shards[item.position] = ((start + rank) % count) + 1;
  });
  return shards;
}

function hashOf(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
