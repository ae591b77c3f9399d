import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { countCacheEntries } from "../cache/cache-store.js";
import type { ScriptContext } from "../context.js";
import { ProjectFileSchema } from "../formats.js";
import { listGeminiSessions } from "../gemini/session-files.js";
import { readMemories } from "../memory/memory-store.js";
import { type NamedSession, namedSessions, readSessionMap } from "../sessions/session-map.js";
import { readJsonFile } from "../store/json-file.js";
import { type BaseLayout, type ProjectLayout, projectLayout } from "../store/locations.js";

export interface ProjectState {
  path: string;
  hash: string;
  cache_entries: number;
  /** Named sessions, each healthy, stale or legacy. */
  named_sessions: NamedSession[];
  /** Gemini's own sessions of this folder (named or not). */
  gemini_sessions: number;
}

/** The current project as the launcher and status report it (read only: nothing is created). */
export function projectState(context: ScriptContext): ProjectState {
  const { project } = context;
  const sessions = listGeminiSessions(context.gemini.dotGemini, project.root);
  return {
    path: project.root,
    hash: project.hash,
    cache_entries: countCacheEntries(project),
    named_sessions: namedSessions(readSessionMap(project), sessions),
    gemini_sessions: sessions.length,
  };
}

export interface GlobalStats {
  total_projects: number;
  total_cache_entries: number;
  total_named_sessions: number;
  memories: number;
}

/** Every project the base folder knows, with its layout. */
export function knownProjects(layout: BaseLayout): ProjectLayout[] {
  if (!existsSync(layout.projectsDir)) return [];
  return readdirSync(layout.projectsDir)
    .sort()
    .map((hash) => {
      let path = "";
      try {
        path = readJsonFile(join(layout.projectsDir, hash, "project.json"), ProjectFileSchema)?.path ?? "";
      } catch {
        path = "";
      }
      return projectLayout(layout, path, hash);
    });
}

export function globalStats(layout: BaseLayout): GlobalStats {
  const projects = knownProjects(layout);
  let sessions = 0;
  for (const project of projects) {
    try {
      sessions += Object.keys(readSessionMap(project).sessions).length;
    } catch {
      // Damaged: counted by sync check, not here.
    }
  }
  let memories = 0;
  try {
    memories = readMemories(layout).memories.length;
  } catch {
    memories = 0;
  }
  return {
    total_projects: projects.length,
    total_cache_entries: projects.reduce((sum, project) => sum + countCacheEntries(project), 0),
    total_named_sessions: sessions,
    memories,
  };
}

export function countByHealth(sessions: NamedSession[]) {
  return {
    healthy: sessions.filter((s) => s.health === "healthy").length,
    stale: sessions.filter((s) => s.health === "stale").length,
    legacy: sessions.filter((s) => s.health === "legacy").length,
  };
}
