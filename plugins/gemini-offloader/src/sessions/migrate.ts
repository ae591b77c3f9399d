import {
  FORMAT_VERSION,
  type SeedSessionState,
  SeedSessionStateSchema,
  type SessionMapFile,
  type SessionMapping,
} from "../formats.js";
import type { GeminiSession } from "../gemini/session-files.js";
import { readJsonFile, StoreFileError } from "../store/json-file.js";
import { mappingForSession, preview } from "./session-map.js";

/**
 * Moving named sessions from older formats into `sessions.json` (format version 1):
 *
 * - version 0, the seed plugin's state file (`{named_sessions: {name: index | {sessionId, ...}}}`,
 *   no version field): each name becomes a mapping to a session id;
 * - legacy entries of version 1 (a bare session index in place of a mapping).
 *
 * A bare index is resolved against the project's Gemini sessions, oldest first: the seed file's
 * from 0 (as the seed plugin's own migrate counted), legacy entries from `legacyBase` (1 by
 * default, as `session list` and Gemini's `--resume` count). Only sessions Gemini still has are
 * migrated; the rest are reported with the reason. The caller reads and writes the files.
 */

export const SEED_FORMAT = { format: "seed-session-state", version: 0 } as const;
export const CURRENT_FORMAT = { format: "session-map", version: FORMAT_VERSION } as const;

/** The seed plugin counted its session indexes from 0. */
const SEED_INDEX_BASE = 0;

export interface MigratedName {
  name: string;
  session_id: string;
  /** What the name was before: a seed mapping, or a bare index (seed file or legacy entry). */
  from: "seed-mapping" | "seed-index" | "legacy-index";
  turns: number;
}

export interface MigrationPlan {
  migrated: MigratedName[];
  /** Names that already map to the same session. */
  already_current: string[];
  failed: Array<{ name: string; reason: string }>;
}

/** Reads a seed state file (it has no version field), failing with the file and the field at fault. */
export function readSeedState(file: string): SeedSessionState {
  const state = readJsonFile(file, SeedSessionStateSchema);
  if (!state) throw new StoreFileError(file, "does not exist");
  return state;
}

/**
 * Plans the migration of `seed` (may be undefined) and of the legacy entries of `map` into `map`,
 * and applies it to `map` (the caller saves it, or not on a dry run).
 */
export function migrateSessionNames(
  map: SessionMapFile,
  seed: SeedSessionState | undefined,
  sessions: GeminiSession[],
  legacyBase: 0 | 1,
): MigrationPlan {
  const plan: MigrationPlan = { migrated: [], already_current: [], failed: [] };
  const byId = new Map(sessions.map((session) => [session.sessionId, session]));
  const atIndex = (index: number, base: 0 | 1) => sessions[index - base];

  const place = (
    name: string,
    session: GeminiSession,
    from: MigratedName["from"],
    extra?: Partial<SessionMapping>,
  ) => {
    const existing = map.sessions[name];
    if (typeof existing === "object") {
      if (existing.session_id === session.sessionId) plan.already_current.push(name);
      else plan.failed.push({ name, reason: `the name is already used for session ${existing.session_id}` });
      return;
    }
    map.sessions[name] = { ...mappingForSession(session), ...extra };
    plan.migrated.push({ name, session_id: session.sessionId, from, turns: session.turns });
  };

  for (const [name, entry] of Object.entries(seed?.named_sessions ?? {}).sort(([a], [b]) =>
    a.localeCompare(b),
  )) {
    if (typeof entry === "number") {
      const session = atIndex(entry, SEED_INDEX_BASE);
      if (session) place(name, session, "seed-index");
      else plan.failed.push({ name, reason: noSessionAt(entry, sessions.length, SEED_INDEX_BASE) });
      continue;
    }
    const session = byId.get(entry.sessionId);
    if (!session) {
      plan.failed.push({ name, reason: `Gemini no longer has session ${entry.sessionId} in this project` });
      continue;
    }
    place(name, session, "seed-mapping", {
      ...(entry.createdAt ? { created_at: entry.createdAt } : {}),
      ...(entry.lastPromptPreview ? { last_prompt_preview: preview(entry.lastPromptPreview) } : {}),
    });
  }

  for (const [name, entry] of Object.entries(map.sessions).sort(([a], [b]) => a.localeCompare(b))) {
    if (typeof entry !== "number") continue;
    const session = atIndex(entry, legacyBase);
    if (!session) {
      plan.failed.push({ name, reason: noSessionAt(entry, sessions.length, legacyBase) });
      continue;
    }
    delete map.sessions[name];
    place(name, session, "legacy-index");
  }
  return plan;
}

function noSessionAt(index: number, count: number, base: 0 | 1): string {
  return `no Gemini session at index ${index} (this project has ${count}, counted from ${base})`;
}
