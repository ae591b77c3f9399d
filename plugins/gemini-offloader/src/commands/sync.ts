import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { cacheEntryFile, listCacheEntries } from "../cache/cache-store.js";
import { optionalString, parseAction, parseDuration, UsageError } from "../cli/args.js";
import type { ScriptOutcome } from "../cli/run-script.js";
import type { ScriptContext } from "../context.js";
import { EXIT } from "../gemini/diagnose.js";
import { listGeminiSessions } from "../gemini/session-files.js";
import { indexStatus, readMemories, rebuildIndex } from "../memory/memory-store.js";
import { namedSessions, readSessionMap, updateSessionMap } from "../sessions/session-map.js";
import type { ProjectLayout } from "../store/locations.js";
import { countByHealth, knownProjects } from "./project-state.js";

export const SYNC_USAGE = `Usage: node dist/sync.js <action> [options]
  stats                     per project: cached answers, answer files, named sessions by health; memory and index
  check                     find drift: answers whose file is gone, orphan answer files, damaged files,
                            stale or legacy session names, a memory index out of step with the store
  rebuild                   rebuild the memory index from the memory store
  prune [--dry-run] [--older-than 30d]
                            remove what check finds (damaged and orphan files, entries without answers,
                            stale session names); with --older-than also cached answers older than that
Options: --project current|all (default all). Never calls Gemini.
Exit codes: 0 done (check: even when it finds problems; see healthy), 2 bad arguments, 1 failure.`;

const ACTIONS = ["stats", "check", "rebuild", "prune"] as const;

const OPTIONS = {
  project: { type: "string" },
  "dry-run": { type: "boolean" },
  "older-than": { type: "string" },
} as const;

export interface Problem {
  kind:
    | "invalid_file"
    | "cache_missing_response"
    | "orphan_response"
    | "stale_session"
    | "legacy_session"
    | "index_drift";
  project: string | null;
  path: string;
  detail: string;
}

export async function syncCommand(argv: string[], context: ScriptContext): Promise<ScriptOutcome> {
  const { action, values } = parseAction(argv, ACTIONS, OPTIONS);
  if (action !== "prune" && (values["dry-run"] !== undefined || values["older-than"] !== undefined)) {
    throw new UsageError("--dry-run and --older-than are options of prune.");
  }
  const scope = optionalString(values, "project") ?? "all";
  if (scope !== "all" && scope !== "current")
    throw new UsageError(`--project must be current or all (got "${scope}").`);
  const projects =
    scope === "current"
      ? [context.project]
      : knownProjects(context.layout).filter((project) => project.root || project.hash);
  switch (action) {
    case "stats":
      return stats(projects, context);
    case "check": {
      const problems = check(projects, context);
      return ok({ action, healthy: problems.length === 0, problems });
    }
    case "rebuild":
      return ok({ action, rebuilt: await rebuildIndex(context.layout) });
    case "prune": {
      const olderThan = optionalString(values, "older-than");
      return prune(
        projects,
        context,
        values["dry-run"] === true,
        olderThan ? parseDuration(olderThan, "older-than") : null,
      );
    }
  }
}

function ok(output: Record<string, unknown>): ScriptOutcome {
  return { exitCode: EXIT.ok, output: { success: true, ...output, error: null } };
}

function filesIn(folder: string, suffix: string): string[] {
  return existsSync(folder) ? readdirSync(folder).filter((name) => name.endsWith(suffix)) : [];
}

function sizeOf(folder: string): number {
  if (!existsSync(folder)) return 0;
  let total = 0;
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    const stats = statSync(path);
    total += stats.isDirectory() ? sizeOf(path) : stats.size;
  }
  return total;
}

function stats(projects: ProjectLayout[], context: ScriptContext): ScriptOutcome {
  const rows = projects.map((project) => {
    let health = { healthy: 0, stale: 0, legacy: 0 };
    try {
      const sessions = project.root ? listGeminiSessions(context.gemini.dotGemini, project.root) : [];
      health = countByHealth(namedSessions(readSessionMap(project), sessions));
    } catch {
      // A damaged sessions.json shows in check.
    }
    return {
      hash: project.hash,
      path: project.root || null,
      cache_entries: filesIn(project.cacheDir, ".json").length,
      response_files: filesIn(project.responsesDir, ".md").length,
      named_sessions: health,
      bytes: sizeOf(project.dir),
    };
  });
  const store = readMemories(context.layout);
  const sum = (pick: (row: (typeof rows)[number]) => number) =>
    rows.reduce((total, row) => total + pick(row), 0);
  return ok({
    action: "stats",
    base: context.layout.base,
    projects: rows,
    totals: {
      projects: rows.length,
      cache_entries: sum((row) => row.cache_entries),
      response_files: sum((row) => row.response_files),
      named_sessions: sum(
        (row) => row.named_sessions.healthy + row.named_sessions.stale + row.named_sessions.legacy,
      ),
      memories: store.memories.length,
      bytes: sizeOf(context.layout.base),
    },
    memory_index: indexStatus(context.layout, store),
  });
}

function check(projects: ProjectLayout[], context: ScriptContext): Problem[] {
  const problems: Problem[] = [];
  for (const project of projects) {
    const listing = listCacheEntries(project);
    for (const invalid of listing.invalid) {
      problems.push({
        kind: "invalid_file",
        project: project.hash,
        path: invalid.file,
        detail: invalid.reason,
      });
    }
    const referenced = new Set<string>();
    for (const { file, entry } of listing.entries) {
      referenced.add(entry.response_file);
      if (!existsSync(entry.response_file)) {
        problems.push({
          kind: "cache_missing_response",
          project: project.hash,
          path: file,
          detail: `its answer file ${entry.response_file} is gone`,
        });
      }
    }
    for (const name of filesIn(project.responsesDir, ".md")) {
      const path = join(project.responsesDir, name);
      const key = name.slice(0, -3);
      if (!referenced.has(path) && !existsSync(cacheEntryFile(project, key))) {
        problems.push({
          kind: "orphan_response",
          project: project.hash,
          path,
          detail: "no cache entry refers to it",
        });
      }
    }
    try {
      const sessions = project.root ? listGeminiSessions(context.gemini.dotGemini, project.root) : [];
      for (const session of namedSessions(readSessionMap(project), sessions)) {
        if (session.health === "stale") {
          problems.push({
            kind: "stale_session",
            project: project.hash,
            path: project.sessionsFile,
            detail: `"${session.name}" points to Gemini session ${session.session_id}, which no longer exists`,
          });
        } else if (session.health === "legacy") {
          problems.push({
            kind: "legacy_session",
            project: project.hash,
            path: project.sessionsFile,
            detail: `"${session.name}" is a bare session index (${session.legacy_index}); give it an id with session adopt`,
          });
        }
      }
    } catch (error) {
      problems.push({
        kind: "invalid_file",
        project: project.hash,
        path: project.sessionsFile,
        detail: (error as Error).message,
      });
    }
  }
  try {
    const index = indexStatus(context.layout);
    if (!index.in_sync) {
      problems.push({
        kind: "index_drift",
        project: null,
        path: context.layout.memoryIndexFile,
        detail:
          index.problem ??
          `index revision ${index.index_revision} vs store revision ${index.store_revision}; ${index.missing_from_index} missing, ${index.extra_in_index} extra; run sync rebuild`,
      });
    }
  } catch (error) {
    problems.push({
      kind: "invalid_file",
      project: null,
      path: context.layout.memoryStoreFile,
      detail: (error as Error).message,
    });
  }
  return problems;
}

async function prune(
  projects: ProjectLayout[],
  context: ScriptContext,
  dryRun: boolean,
  olderThanMs: number | null,
): Promise<ScriptOutcome> {
  const problems = check(projects, context);
  const removed = { cache_entries: 0, response_files: 0, invalid_files: 0, session_names: 0 };
  const paths: string[] = [];
  const remove = (path: string, counter: keyof typeof removed) => {
    removed[counter] += 1;
    paths.push(path);
    if (!dryRun) rmSync(path, { force: true });
  };
  const damagedEntries = new Set(
    projects.flatMap((project) => listCacheEntries(project).invalid.map((each) => each.file)),
  );
  for (const problem of problems) {
    if (problem.kind === "invalid_file" && damagedEntries.has(problem.path))
      remove(problem.path, "invalid_files");
    else if (problem.kind === "cache_missing_response") remove(problem.path, "cache_entries");
    else if (problem.kind === "orphan_response") remove(problem.path, "response_files");
  }
  if (olderThanMs !== null) {
    const cutoff = Date.now() - olderThanMs;
    for (const project of projects) {
      for (const { file, entry } of listCacheEntries(project).entries) {
        if (Date.parse(entry.created_at) < cutoff && !paths.includes(file)) {
          remove(file, "cache_entries");
          if (existsSync(entry.response_file)) remove(entry.response_file, "response_files");
        }
      }
    }
  }
  const staleNames: string[] = [];
  for (const project of projects) {
    if (!project.root) continue;
    try {
      const sessions = listGeminiSessions(context.gemini.dotGemini, project.root);
      const stale = namedSessions(readSessionMap(project), sessions)
        .filter((session) => session.health === "stale")
        .map((session) => session.name);
      if (stale.length === 0) continue;
      staleNames.push(...stale);
      removed.session_names += stale.length;
      if (!dryRun) {
        await updateSessionMap(project, (map) => {
          for (const name of stale) delete map.sessions[name];
        });
      }
    } catch {
      // Damaged sessions.json: reported by check, left for the user to look at.
    }
  }
  return ok({ action: "prune", dry_run: dryRun, removed, paths, session_names: staleNames });
}
