import { createHash } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { type CacheEntry, CacheEntrySchema } from "../formats.js";
import {
  readJsonFile,
  StoreFileError,
  writeJsonFileAtomic,
  writeTextFileAtomic,
} from "../store/json-file.js";
import type { ProjectLayout } from "../store/locations.js";

export interface CacheKeyInput {
  prompt: string;
  model: string | null;
  /** The included folders, as absolute paths. */
  includeDirs: string[];
  contextSha256: string | null;
}

/**
 * An answer's cache key: the prompt, the model, which folders were included and the piped context.
 * The included files' sizes and mtimes are not in the key but in the entry: a changed file makes
 * the entry stale (reported as such) rather than silently missing.
 */
export function cacheKey(input: CacheKeyInput): string {
  const material = JSON.stringify({
    prompt: input.prompt,
    model: input.model,
    include_dirs: [...input.includeDirs].sort(),
    context: input.contextSha256,
  });
  return createHash("sha256").update(material).digest("hex").slice(0, 32);
}

export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

export function cacheEntryFile(project: ProjectLayout, key: string): string {
  return join(project.cacheDir, `${key}.json`);
}

export function responseFile(project: ProjectLayout, key: string): string {
  return join(project.responsesDir, `${key}.md`);
}

/** The cached entry for a key, if it is there, readable and its answer file still exists. */
export function readCacheEntry(project: ProjectLayout, key: string): CacheEntry | undefined {
  try {
    const entry = readJsonFile(cacheEntryFile(project, key), CacheEntrySchema);
    return entry && existsSync(entry.response_file) ? entry : undefined;
  } catch (error) {
    if (error instanceof StoreFileError) return undefined; // A damaged entry is a miss; the new answer replaces it.
    throw error;
  }
}

/** Stores an answer: the full text in responses/<key>.md, the entry in cache/<key>.json. */
export function writeCacheEntry(project: ProjectLayout, entry: CacheEntry, response: string): void {
  writeTextFileAtomic(entry.response_file, response);
  writeJsonFileAtomic(cacheEntryFile(project, entry.key), entry);
}

export interface CacheListing {
  entries: Array<{ file: string; entry: CacheEntry }>;
  /** Entry files that cannot be read, with the reason. */
  invalid: Array<{ file: string; reason: string }>;
}

export function listCacheEntries(project: ProjectLayout): CacheListing {
  const listing: CacheListing = { entries: [], invalid: [] };
  if (!existsSync(project.cacheDir)) return listing;
  for (const name of readdirSync(project.cacheDir).sort()) {
    if (!name.endsWith(".json")) continue;
    const file = join(project.cacheDir, name);
    try {
      const entry = readJsonFile(file, CacheEntrySchema);
      if (entry) listing.entries.push({ file, entry });
    } catch (error) {
      listing.invalid.push({ file, reason: (error as Error).message });
    }
  }
  return listing;
}

/** How many answers a project has cached (entry files, without reading them). */
export function countCacheEntries(project: ProjectLayout): number {
  if (!existsSync(project.cacheDir)) return 0;
  return readdirSync(project.cacheDir).filter((name) => name.endsWith(".json")).length;
}
