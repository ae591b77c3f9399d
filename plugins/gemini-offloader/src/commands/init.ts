import { accessSync, constants, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseOptions } from "../cli/args.js";
import type { ScriptOutcome } from "../cli/run-script.js";
import type { ScriptContext } from "../context.js";
import {
  ConfigFileSchema,
  FORMAT_VERSION,
  MemoryIndexFileSchema,
  MemoryStoreFileSchema,
  ProjectFileSchema,
  SessionMapFileSchema,
} from "../formats.js";
import { detectAuth } from "../gemini/auth.js";
import { EXIT } from "../gemini/diagnose.js";
import { prepareGeminiEnvironment } from "../gemini/environment.js";
import { INSTALL_HINT } from "../gemini/locate.js";
import { listGeminiSessions } from "../gemini/session-files.js";
import { rebuildIndex } from "../memory/memory-store.js";
import { readSeedState } from "../sessions/migrate.js";
import { readSessionMap } from "../sessions/session-map.js";
import { readJsonFile, writeJsonFileAtomic } from "../store/json-file.js";
import { ensureProject } from "../store/locations.js";
import { mappedIds, SEED_STATE_FILE } from "./session-discover.js";

export const INIT_USAGE = `Usage: node dist/init.js [-c/--check]
Sets the plugin up for the project (the folder it runs in), and says what else is needed.
Checks: Node version, Gemini installed, credentials, the base folder writable, the plugin's files
valid, a state file of the seed plugin to migrate, Gemini sessions of this folder with no name.
Writes (only what is missing, so running it again changes nothing): config.json, this project's
project.json, an empty memory and its index, and Gemini's quiet settings (hermetic home, or the
system-defaults file in the base folder). --check writes nothing. Never calls Gemini.
Exit codes: 0 set up (see ready and next_steps), 1 Gemini not installed (install_hint) or a
damaged file (its path and field), 2 bad arguments.`;

const MIN_NODE = [20, 20, 2] as const;

interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export async function initCommand(argv: string[], context: ScriptContext): Promise<ScriptOutcome> {
  const { values } = parseOptions(argv, { check: { type: "boolean", short: "c" } });
  const checkOnly = values.check === true;
  const { layout, project } = context;
  const checks: Check[] = [];
  const nextSteps: string[] = [];

  checks.push({
    name: "node",
    ok: nodeAtLeast(process.versions.node, MIN_NODE),
    detail: `Node ${process.versions.node} (needs ${MIN_NODE.join(".")} or newer)`,
  });
  const installed = context.geminiBin.found;
  checks.push({
    name: "gemini_installed",
    ok: installed,
    detail: context.geminiBin.found ? context.geminiBin.path : context.geminiBin.reason,
  });
  if (!installed) nextSteps.push(INSTALL_HINT);
  const auth = detectAuth(context.env, context.gemini.dotGemini);
  checks.push({
    name: "gemini_credentials",
    ok: auth.authenticated,
    detail: auth.method ?? "no API key, Vertex AI settings or saved Google login",
  });
  if (!auth.authenticated) nextSteps.push("Run `gemini` once to sign in, or set GEMINI_API_KEY.");
  const writable = canWrite(layout.base);
  checks.push({ name: "base_writable", ok: writable, detail: layout.base });

  const damaged = damagedFiles(context);
  checks.push({
    name: "files_valid",
    ok: damaged.length === 0,
    detail: damaged.length === 0 ? "every file of the plugin that exists is valid" : damaged.join("; "),
  });
  if (damaged.length > 0)
    nextSteps.push("Run `sync.js check`, then `sync.js prune` to remove damaged files.");

  const seedFile = join(project.root, SEED_STATE_FILE);
  const hasSeed = existsSync(seedFile);
  checks.push({
    name: "seed_state_migrated",
    ok: !hasSeed || seedMigrated(context, seedFile),
    detail: hasSeed ? seedFile : "no state file of the seed plugin in this folder",
  });
  if (hasSeed && !seedMigrated(context, seedFile))
    nextSteps.push("Run `session.js migrate` to keep its names.");

  const unnamed = unnamedSessions(context);
  checks.push({
    name: "gemini_sessions_named",
    ok: unnamed === 0,
    detail: `${unnamed} Gemini session(s) of this folder have no name`,
  });
  if (unnamed > 0) nextSteps.push("Run `session.js discover` to see them, `--adopt` to name them.");

  const created: string[] = [];
  const existing: string[] = [];
  if (!checkOnly && writable && damaged.length === 0) {
    await setUp(context, created, existing);
  }
  const ok = installed && damaged.length === 0 && writable;
  return {
    exitCode: ok ? EXIT.ok : EXIT.failure,
    output: {
      success: ok,
      action: checkOnly ? "check" : "init",
      ready: ok && auth.authenticated,
      base: layout.base,
      project: { path: project.root, hash: project.hash },
      checks,
      created,
      existing,
      next_steps: nextSteps,
      ...(installed ? {} : { install_hint: INSTALL_HINT }),
      error: ok
        ? null
        : checks
            .filter(
              (check) =>
                !check.ok && ["gemini_installed", "base_writable", "files_valid"].includes(check.name),
            )
            .map((check) => `${check.name}: ${check.detail}`)
            .join("; "),
    },
  };
}

/** Writes what is missing, noting each file as created or already there. */
async function setUp(context: ScriptContext, created: string[], existing: string[]): Promise<void> {
  const { layout, project } = context;
  const note = (file: string, before: boolean) => (before ? existing : created).push(file);
  const files = [layout.configFile, project.projectFile, layout.memoryStoreFile, layout.memoryIndexFile];
  const before = new Map(files.map((file) => [file, existsSync(file)]));
  ensureProject(layout, project);
  if (!existsSync(layout.memoryStoreFile)) {
    writeJsonFileAtomic(layout.memoryStoreFile, { version: FORMAT_VERSION, revision: 0, memories: [] });
  }
  if (!existsSync(layout.memoryIndexFile)) await rebuildIndex(layout);
  for (const file of files) note(file, before.get(file)!);
  const settings = context.gemini.hermetic
    ? join(context.gemini.dotGemini, "settings.json")
    : context.gemini.systemDefaultsFile;
  if (settings) {
    const had = existsSync(settings);
    prepareGeminiEnvironment(context.gemini);
    note(settings, had);
  }
}

function nodeAtLeast(version: string, minimum: readonly number[]): boolean {
  const parts = version.split(".").map(Number);
  for (let at = 0; at < minimum.length; at += 1) {
    const have = parts[at] ?? 0;
    if (have !== minimum[at]) return have > minimum[at]!;
  }
  return true;
}

/** The base folder can be written: it exists and is writable, or its nearest existing parent is. */
function canWrite(folder: string): boolean {
  let probe = folder;
  while (!existsSync(probe) && dirname(probe) !== probe) probe = dirname(probe);
  try {
    accessSync(probe, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The plugin's files for this project and the memory that exist but do not read: "path: problem".
 * (Cache entries are checked one by one by `sync check`.)
 */
function damagedFiles(context: ScriptContext): string[] {
  const { layout, project } = context;
  const problems: string[] = [];
  const check = (read: () => unknown) => {
    try {
      read();
    } catch (error) {
      problems.push((error as Error).message);
    }
  };
  check(() => readJsonFile(layout.configFile, ConfigFileSchema));
  check(() => readJsonFile(project.projectFile, ProjectFileSchema));
  check(() => readJsonFile(project.sessionsFile, SessionMapFileSchema));
  check(() => readJsonFile(layout.memoryStoreFile, MemoryStoreFileSchema));
  check(() => readJsonFile(layout.memoryIndexFile, MemoryIndexFileSchema));
  return problems;
}

/** Every name of the seed file is already in sessions.json (as `session migrate` leaves it). */
function seedMigrated(context: ScriptContext, seedFile: string): boolean {
  try {
    const names = Object.keys(readSeedState(seedFile).named_sessions);
    const map = readSessionMap(context.project).sessions;
    return names.every((name) => typeof map[name] === "object");
  } catch {
    return false;
  }
}

function unnamedSessions(context: ScriptContext): number {
  const sessions = listGeminiSessions(context.gemini.dotGemini, context.project.root);
  let named: Set<string>;
  try {
    named = mappedIds(context.project);
  } catch {
    named = new Set(); // a damaged sessions.json is reported by files_valid
  }
  return sessions.filter((session) => !named.has(session.sessionId)).length;
}
