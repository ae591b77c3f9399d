import {
  FORMAT_VERSION,
  type SessionMapFile,
  SessionMapFileSchema,
  type SessionMapping,
} from "../formats.js";
import type { GeminiSession } from "../gemini/session-files.js";
import { readJsonFile, withFileLock, writeJsonFileAtomic } from "../store/json-file.js";
import type { ProjectLayout } from "../store/locations.js";

/**
 * A named session's health: `healthy` when Gemini still has the session on disk, `stale` when
 * Gemini no longer has it (deleted or cleaned up), `legacy` when the name maps to a bare session
 * index from the plugin's first versions (adopt it to give it a session id).
 */
export type SessionHealth = "healthy" | "stale" | "legacy";

export interface NamedSession {
  name: string;
  session_id: string | null;
  health: SessionHealth;
  turns: number | null;
  created_at: string | null;
  last_used_at: string | null;
  last_prompt_preview: string | null;
  /** Legacy mappings only: the Gemini session index they were saved with. */
  legacy_index: number | null;
  adopted: boolean;
}

export function readSessionMap(project: ProjectLayout): SessionMapFile {
  return (
    readJsonFile(project.sessionsFile, SessionMapFileSchema) ?? {
      version: FORMAT_VERSION,
      project_path: project.root,
      sessions: {},
    }
  );
}

/** Changes the project's named sessions under a lock and saves them. */
export function updateSessionMap<T>(project: ProjectLayout, change: (map: SessionMapFile) => T): Promise<T> {
  return withFileLock(project.sessionsFile, () => {
    const map = readSessionMap(project);
    const result = change(map);
    writeJsonFileAtomic(project.sessionsFile, map);
    return result;
  });
}

/** The project's named sessions, each with its health judged against Gemini's files on disk. */
export function namedSessions(map: SessionMapFile, geminiSessions: GeminiSession[]): NamedSession[] {
  const onDisk = new Map(geminiSessions.map((session) => [session.sessionId, session]));
  return Object.entries(map.sessions)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, mapping]) => describe(name, mapping, onDisk));
}

function describe(
  name: string,
  mapping: SessionMapping | number,
  onDisk: Map<string, GeminiSession>,
): NamedSession {
  if (typeof mapping === "number") {
    return {
      name,
      session_id: null,
      health: "legacy",
      turns: null,
      created_at: null,
      last_used_at: null,
      last_prompt_preview: null,
      legacy_index: mapping,
      adopted: false,
    };
  }
  const session = onDisk.get(mapping.session_id);
  return {
    name,
    session_id: mapping.session_id,
    health: session ? "healthy" : "stale",
    turns: session ? session.turns : mapping.turns,
    created_at: mapping.created_at,
    last_used_at: mapping.last_used_at,
    last_prompt_preview: mapping.last_prompt_preview,
    legacy_index: null,
    adopted: mapping.adopted,
  };
}

/** The mapping that names a Gemini session found on disk (adopted, discovered or migrated). */
export function mappingForSession(session: GeminiSession, now = new Date().toISOString()): SessionMapping {
  return {
    session_id: session.sessionId,
    created_at: session.startTime || now,
    last_used_at: session.lastUpdated || now,
    turns: session.turns,
    last_prompt_preview: preview(session.lastPrompt ?? ""),
    model: null,
    adopted: true,
  };
}

export function preview(text: string, length = 100): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > length ? `${flat.slice(0, length - 1)}…` : flat;
}
