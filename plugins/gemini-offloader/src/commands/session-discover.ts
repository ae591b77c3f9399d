import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { optionalString, UsageError } from "../cli/args.js";
import type { ScriptOutcome } from "../cli/run-script.js";
import type { ScriptContext } from "../context.js";
import { EXIT } from "../gemini/diagnose.js";
import { type GeminiSession, geminiProjectFolders, listGeminiSessions } from "../gemini/session-files.js";
import { saveSessionAnswers } from "../sessions/adopted-turns.js";
import { CURRENT_FORMAT, migrateSessionNames, readSeedState, SEED_FORMAT } from "../sessions/migrate.js";
import { mappingForSession, preview, readSessionMap, updateSessionMap } from "../sessions/session-map.js";
import { ensureProject, type ProjectLayout, projectHash, projectLayout } from "../store/locations.js";

/**
 * `session discover` and `session migrate`: finding the Gemini sessions made outside the plugin
 * (by `gemini` itself, or another tool) and naming them, and moving names kept in older formats
 * into `sessions.json`. Neither calls Gemini: both read Gemini's session files on disk.
 */

type Values = Record<string, string | boolean | string[] | undefined>;

/** The seed plugin's per-project state file, looked for in the project folder. */
export const SEED_STATE_FILE = ".gemini-offloader-sessions.json";

/** Gemini sessions that no name points to: this project's, or every project Gemini knows. */
export async function discover(values: Values, context: ScriptContext): Promise<ScriptOutcome> {
  const allProjects = values["all-projects"] === true;
  const adoptAll = values.adopt === true;
  if (adoptAll && allProjects) {
    throw new UsageError("--adopt names the sessions of this project only: run it without --all-projects.");
  }
  const { project } = context;
  const folders = allProjects
    ? [...new Set([project.root, ...geminiProjectFolders(context.gemini.dotGemini)])].sort()
    : [project.root];
  const unmapped: Array<Record<string, unknown>> = [];
  let total = 0;
  for (const folder of folders) {
    const sessions = listGeminiSessions(context.gemini.dotGemini, folder);
    total += sessions.length;
    const isCurrent = folder === project.root;
    const named = mappedIds(isCurrent ? project : projectLayout(context.layout, folder, projectHash(folder)));
    sessions.forEach((session, at) => {
      if (named.has(session.sessionId)) return;
      unmapped.push(describe(session, isCurrent ? at + 1 : null, folder, isCurrent));
    });
  }
  const adopted = adoptAll ? await adoptUnnamed(context) : [];
  return {
    exitCode: EXIT.ok,
    output: {
      success: true,
      action: "discover",
      project: { path: project.root, hash: project.hash },
      all_projects: allProjects,
      total_gemini_sessions: total,
      unmapped,
      adopted,
      error: null,
    },
  };
}

/** The Gemini session ids that a name of the project points to. */
export function mappedIds(project: ProjectLayout): Set<string> {
  const ids = new Set<string>();
  for (const mapping of Object.values(readSessionMap(project).sessions)) {
    if (typeof mapping === "object") ids.add(mapping.session_id);
  }
  return ids;
}

function describe(session: GeminiSession, index: number | null, folder: string, isCurrent: boolean) {
  return {
    index,
    session_id: session.sessionId,
    project_path: folder,
    is_current_project: isCurrent,
    started_at: session.startTime,
    updated_at: session.lastUpdated,
    turns: session.turns,
    first_prompt: session.firstPrompt === null ? null : preview(session.firstPrompt),
    last_prompt: session.lastPrompt === null ? null : preview(session.lastPrompt),
  };
}

/**
 * Names every unnamed session of this project `gemini-<first 8 of its id>`, and saves its answers
 * as turn files (for `memory index-offload`).
 */
async function adoptUnnamed(
  context: ScriptContext,
): Promise<Array<{ name: string; session_id: string; turns_saved: number }>> {
  const sessions = listGeminiSessions(context.gemini.dotGemini, context.project.root);
  ensureProject(context.layout, context.project);
  const adopted = await updateSessionMap(context.project, (map) => {
    const named = new Set(
      Object.values(map.sessions).flatMap((mapping) =>
        typeof mapping === "object" ? [mapping.session_id] : [],
      ),
    );
    const adopted: Array<{ name: string; session: GeminiSession }> = [];
    for (const session of sessions) {
      if (named.has(session.sessionId)) continue;
      const name = freeName(`gemini-${session.sessionId.slice(0, 8)}`, map.sessions);
      map.sessions[name] = mappingForSession(session);
      adopted.push({ name, session });
    }
    return adopted;
  });
  return adopted.map(({ name, session }) => ({
    name,
    session_id: session.sessionId,
    turns_saved: saveSessionAnswers(context.project, session),
  }));
}

function freeName(wanted: string, taken: Record<string, unknown>): string {
  let name = wanted;
  for (let n = 2; taken[name] !== undefined; n += 1) name = `${wanted}-${n}`;
  return name;
}

/** Moves names from the seed plugin's state file and legacy index entries into sessions.json. */
export async function migrate(values: Values, context: ScriptContext): Promise<ScriptOutcome> {
  const { project } = context;
  const dryRun = values["dry-run"] === true;
  const base = optionalString(values, "legacy-base") ?? "1";
  if (base !== "0" && base !== "1") throw new UsageError(`--legacy-base must be 0 or 1 (got "${base}").`);
  const given = optionalString(values, "from");
  const seedFile = given ? resolve(context.cwd, given) : join(project.root, SEED_STATE_FILE);
  if (given && !existsSync(seedFile)) throw new UsageError(`--from: ${seedFile} does not exist.`);
  const seed = existsSync(seedFile) ? readSeedState(seedFile) : undefined;
  const sessions = listGeminiSessions(context.gemini.dotGemini, project.root);
  const legacyBase = Number(base) as 0 | 1;

  const plan = dryRun
    ? migrateSessionNames(readSessionMap(project), seed, sessions, legacyBase)
    : await (async () => {
        ensureProject(context.layout, project);
        return updateSessionMap(project, (map) => migrateSessionNames(map, seed, sessions, legacyBase));
      })();
  return {
    exitCode: EXIT.ok,
    output: {
      success: true,
      action: "migrate",
      dry_run: dryRun,
      from: seed ? [{ file: seedFile, ...SEED_FORMAT, names: Object.keys(seed.named_sessions).length }] : [],
      to: { file: project.sessionsFile, ...CURRENT_FORMAT },
      legacy_index_base: legacyBase,
      ...plan,
      error: null,
    },
  };
}
