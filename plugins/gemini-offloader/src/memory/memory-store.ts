import { randomBytes } from "node:crypto";
import MiniSearch, { type AsPlainObject } from "minisearch";
import {
  FORMAT_VERSION,
  type Memory,
  type MemoryIndexFile,
  MemoryIndexFileSchema,
  type MemorySource,
  type MemoryStoreFile,
  MemoryStoreFileSchema,
} from "../formats.js";
import { readJsonFile, withFileLock, writeJsonFileAtomic } from "../store/json-file.js";
import { type BaseLayout, ensureInitialized } from "../store/locations.js";

/**
 * The memory: a JSON file of memories under the base folder, searched with MiniSearch (full text,
 * prefix and fuzzy matching, ranked by BM25). No service, no key, no network. The index is saved
 * beside the store with the store revision it was built from; a stale or missing index is rebuilt.
 */
const INDEX_OPTIONS = {
  idField: "id",
  fields: ["text", "topic", "prompt"],
  extractField: (document: Memory, field: string) =>
    String((document as Record<string, unknown>)[field] ?? ""),
};
const SEARCH_OPTIONS = { prefix: true, fuzzy: 0.2, boost: { topic: 2 } };

/**
 * Where a memory belongs, derived from the fields every memory has (no format change):
 * `user` — no project (knowledge that holds everywhere), `project` — one project, no session,
 * `session` — one named session of one project.
 */
export const MEMORY_SCOPES = ["user", "project", "session"] as const;
export type MemoryScope = (typeof MEMORY_SCOPES)[number];

export function scopeOf(memory: Memory): MemoryScope {
  if (memory.session) return "session";
  return memory.project_hash ? "project" : "user";
}

export interface MemoryFilters {
  /** Only memories in one of these scopes; `project` and `session` mean the given project's. */
  scopes?: { scopes: MemoryScope[]; project: string };
  topic?: string;
  source?: MemorySource;
  session?: string;
  /** Only memories created at or after this time. */
  since?: Date;
  /** Only memories of this project hash. */
  project?: string;
}

export function newMemoryId(): string {
  return `mem_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
}

export function readMemories(layout: BaseLayout): MemoryStoreFile {
  return readJsonFile(layout.memoryStoreFile, MemoryStoreFileSchema) ?? emptyStore();
}

function emptyStore(): MemoryStoreFile {
  return { version: FORMAT_VERSION, revision: 0, memories: [] };
}

/**
 * Changes the memories under a lock. `change` edits the list in place and returns whether it
 * changed anything; if so the revision goes up and the store and its index are saved.
 */
export function changeMemories<T>(
  layout: BaseLayout,
  change: (memories: Memory[]) => { changed: boolean; result: T },
): Promise<T> {
  return withFileLock(layout.memoryStoreFile, () => {
    const store = readMemories(layout);
    const { changed, result } = change(store.memories);
    if (changed) {
      ensureInitialized(layout);
      store.revision += 1;
      writeJsonFileAtomic(layout.memoryStoreFile, store);
      writeIndex(layout, store);
    }
    return result;
  });
}

function buildIndex(memories: Memory[]): MiniSearch<Memory> {
  const index = new MiniSearch<Memory>(INDEX_OPTIONS);
  index.addAll(memories);
  return index;
}

function writeIndex(layout: BaseLayout, store: MemoryStoreFile): void {
  const file: MemoryIndexFile = {
    version: FORMAT_VERSION,
    revision: store.revision,
    ids: store.memories.map((memory) => memory.id),
    minisearch: buildIndex(store.memories).toJSON() as unknown as Record<string, unknown>,
  };
  writeJsonFileAtomic(layout.memoryIndexFile, file);
}

export interface IndexStatus {
  in_sync: boolean;
  store_revision: number;
  index_revision: number | null;
  /** Memories the saved index does not have. */
  missing_from_index: number;
  /** Ids in the saved index that are no longer memories. */
  extra_in_index: number;
  problem: string | null;
}

/** Whether the saved index matches the store (`sync check` reports drift, `sync rebuild` fixes it). */
export function indexStatus(layout: BaseLayout, store = readMemories(layout)): IndexStatus {
  let index: MemoryIndexFile | undefined;
  let problem: string | null = null;
  try {
    index = readJsonFile(layout.memoryIndexFile, MemoryIndexFileSchema);
  } catch (error) {
    problem = (error as Error).message;
  }
  const storeIds = new Set(store.memories.map((memory) => memory.id));
  const indexIds = new Set(index?.ids ?? []);
  const missing = [...storeIds].filter((id) => !indexIds.has(id)).length;
  const extra = [...indexIds].filter((id) => !storeIds.has(id)).length;
  if (!index && !problem && store.memories.length > 0) problem = "the index file is missing";
  return {
    in_sync: !problem && missing === 0 && extra === 0 && (index?.revision ?? 0) === store.revision,
    store_revision: store.revision,
    index_revision: index?.revision ?? null,
    missing_from_index: missing,
    extra_in_index: extra,
    problem,
  };
}

/** Rebuilds the saved index from the store. */
export function rebuildIndex(layout: BaseLayout): Promise<{ memories: number; revision: number }> {
  return withFileLock(layout.memoryStoreFile, () => {
    const store = readMemories(layout);
    ensureInitialized(layout);
    writeIndex(layout, store);
    return { memories: store.memories.length, revision: store.revision };
  });
}

/** The saved index when it matches the store; else one built now (the saved file is left alone). */
function loadIndex(layout: BaseLayout, store: MemoryStoreFile): MiniSearch<Memory> {
  try {
    const saved = readJsonFile(layout.memoryIndexFile, MemoryIndexFileSchema);
    if (saved && saved.revision === store.revision && saved.ids.length === store.memories.length) {
      return MiniSearch.loadJS<Memory>(saved.minisearch as unknown as AsPlainObject, INDEX_OPTIONS);
    }
  } catch {
    // A damaged index file is rebuilt here; sync check reports it and sync rebuild replaces it.
  }
  return buildIndex(store.memories);
}

export interface SearchHit {
  memory: Memory;
  score: number;
}

/** Full-text search over the memories, best first, within the filters. */
export function searchMemories(
  layout: BaseLayout,
  query: string,
  filters: MemoryFilters,
  limit: number,
): SearchHit[] {
  const store = readMemories(layout);
  const byId = new Map(store.memories.map((memory) => [memory.id, memory]));
  const index = loadIndex(layout, store);
  const hits: SearchHit[] = [];
  for (const result of index.search(query, SEARCH_OPTIONS)) {
    const memory = byId.get(String(result.id));
    if (memory && matchesFilters(memory, filters)) hits.push({ memory, score: round(result.score) });
    if (hits.length >= limit) break;
  }
  return hits;
}

/** The memories that pass the filters, newest first. */
export function filterMemories(layout: BaseLayout, filters: MemoryFilters, limit: number): Memory[] {
  return readMemories(layout)
    .memories.filter((memory) => matchesFilters(memory, filters))
    .sort((a, b) => b.created_at.localeCompare(a.created_at))
    .slice(0, limit);
}

export function matchesFilters(memory: Memory, filters: MemoryFilters): boolean {
  if (filters.scopes && !inScopes(memory, filters.scopes.scopes, filters.scopes.project)) return false;
  if (filters.topic && memory.topic?.toLowerCase() !== filters.topic.toLowerCase()) return false;
  if (filters.source && memory.source !== filters.source) return false;
  if (filters.session && memory.session !== filters.session) return false;
  if (filters.project && memory.project_hash !== filters.project) return false;
  if (filters.since && Date.parse(memory.created_at) < filters.since.getTime()) return false;
  return true;
}

function inScopes(memory: Memory, scopes: MemoryScope[], project: string): boolean {
  const scope = scopeOf(memory);
  if (!scopes.includes(scope)) return false;
  return scope === "user" || memory.project_hash === project;
}

function round(score: number): number {
  return Math.round(score * 1000) / 1000;
}
