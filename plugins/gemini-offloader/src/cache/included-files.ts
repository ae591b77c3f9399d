import { createHash } from "node:crypto";
import { existsSync, lstatSync, readdirSync, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import type { IncludedFile } from "../formats.js";

/** Folders never walked for the fingerprint: version control and installed dependencies. */
const SKIPPED_FOLDERS = new Set([".git", "node_modules", ".hg", ".svn"]);
/** How many files the fingerprint covers before it stops walking (and says so). */
export const MAX_INCLUDED_FILES = 20_000;
/** How many of them a cache entry lists by name (to report which ones changed). */
export const MAX_LISTED_FILES = 2_000;

export interface IncludedFiles {
  files: IncludedFile[];
  truncated: boolean;
  fingerprint: string;
}

/**
 * The files an answer depends on: everything under the --include-dirs folders, and the files the
 * prompt names with `@path` (Gemini inlines those). Each with its size and mtime, so that an edit
 * changes the fingerprint.
 */
export function collectIncludedFiles(
  projectRoot: string,
  includeDirs: string[],
  prompt: string,
): IncludedFiles {
  const files = new Map<string, IncludedFile>();
  let truncated = false;
  const add = (path: string) => {
    if (files.size >= MAX_INCLUDED_FILES) {
      truncated = true;
      return false;
    }
    try {
      const stats = statSync(path);
      files.set(path, { path, size: stats.size, mtime_ms: stats.mtimeMs });
    } catch {
      // Vanished while walking: not part of the answer.
    }
    return true;
  };
  const walk = (folder: string) => {
    let names: string[];
    try {
      names = readdirSync(folder).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (truncated) return;
      const path = join(folder, name);
      let stats: ReturnType<typeof lstatSync>;
      try {
        stats = lstatSync(path);
      } catch {
        continue;
      }
      if (stats.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(name)) walk(path);
      } else if (stats.isFile()) {
        add(path);
      }
    }
  };
  for (const dir of includeDirs) {
    const folder = resolveIn(projectRoot, dir);
    if (existsSync(folder) && statSync(folder).isDirectory()) walk(folder);
    else if (existsSync(folder)) add(folder);
  }
  for (const reference of fileReferences(prompt)) {
    const path = resolveIn(projectRoot, reference);
    if (!existsSync(path)) continue;
    if (statSync(path).isDirectory()) walk(path);
    else add(path);
  }
  const sorted = [...files.values()].sort((a, b) => a.path.localeCompare(b.path));
  return { files: sorted, truncated, fingerprint: fingerprintOf(sorted, truncated) };
}

export function fingerprintOf(files: IncludedFile[], truncated: boolean): string {
  const hash = createHash("sha256");
  for (const file of files) hash.update(`${file.path}\0${file.size}\0${file.mtime_ms}\n`);
  hash.update(truncated ? "truncated" : "complete");
  return hash.digest("hex");
}

/** The `@path` references in a prompt (Gemini's syntax for inlining a file or folder). */
export function fileReferences(prompt: string): string[] {
  const references: string[] = [];
  for (const match of prompt.matchAll(/(?:^|\s)@((?:\\ |[^\s])+)/g)) {
    const reference = match[1]!.replace(/\\ /g, " ").replace(/[),.;:!?]+$/, "");
    if (reference) references.push(reference);
  }
  return references;
}

/** Which files differ between two listings: changed, added or removed (paths, at most `limit`). */
export function changedFiles(before: IncludedFile[], after: IncludedFile[], limit = 20): string[] {
  const old = new Map(before.map((file) => [file.path, file]));
  const changed: string[] = [];
  for (const file of after) {
    const previous = old.get(file.path);
    if (!previous || previous.size !== file.size || previous.mtime_ms !== file.mtime_ms)
      changed.push(file.path);
    old.delete(file.path);
  }
  changed.push(...old.keys());
  return changed.sort().slice(0, limit);
}

export function resolveIn(projectRoot: string, path: string): string {
  return isAbsolute(path) ? path : resolve(projectRoot, path);
}
