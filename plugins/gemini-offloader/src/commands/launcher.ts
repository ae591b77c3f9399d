import { dirname, join } from "node:path";
import { parseOptions } from "../cli/args.js";
import type { ScriptOutcome } from "../cli/run-script.js";
import type { ScriptContext } from "../context.js";
import { detectAuth } from "../gemini/auth.js";
import { EXIT } from "../gemini/diagnose.js";
import { INSTALL_HINT } from "../gemini/locate.js";
import { isInitialized } from "../store/locations.js";
import {
  countByHealth,
  type GlobalStats,
  globalStats,
  type ProjectState,
  projectState,
} from "./project-state.js";

export const LAUNCHER_USAGE = `Usage: node dist/launcher.js
Reports whether Gemini is installed and authenticated, the current project (cache entries, named
sessions with their health), global stats, the six operations with availability, and one suggestion.
Never calls Gemini. Exit codes: 0 report, 1 report but Gemini is not installed (see install_hint).`;

export const OPERATION_IDS = ["research", "sessions", "search", "memory", "status", "sync"] as const;
export type OperationId = (typeof OPERATION_IDS)[number];

export interface Operation {
  id: OperationId;
  label: string;
  description: string;
  available: boolean;
  reason: string | null;
  /** How to run it (the script, with the options to fill in). */
  command: string;
  context: Record<string, unknown> | null;
}

export interface Suggestion {
  operation: OperationId;
  reason: string;
  command: string;
}

interface Readiness {
  installed: boolean;
  authenticated: boolean;
  initialized: boolean;
}

export async function launcherCommand(argv: string[], context: ScriptContext): Promise<ScriptOutcome> {
  parseOptions(argv, {});
  const auth = detectAuth(context.env, context.gemini.dotGemini);
  const state: Readiness = {
    installed: context.geminiBin.found,
    authenticated: auth.authenticated,
    initialized: isInitialized(context.layout),
  };
  const project = projectState(context);
  const global = globalStats(context.layout);
  const scripts = scriptsFolder();
  const operations = buildOperations(state, project, global, scripts);
  const output = {
    success: state.installed,
    ready: state.installed && state.authenticated,
    installed: state.installed,
    authenticated: state.authenticated,
    auth_method: auth.method,
    state_initialized: state.initialized,
    hermetic: context.gemini.hermetic,
    gemini_path: context.geminiBin.found ? context.geminiBin.path : null,
    base: context.layout.base,
    project,
    global,
    operations,
    suggestion: suggest(state, project, operations),
    ...(context.geminiBin.found ? {} : { install_hint: INSTALL_HINT }),
    error: context.geminiBin.found ? null : context.geminiBin.reason,
  };
  return { exitCode: state.installed ? EXIT.ok : EXIT.failure, output };
}

/** Where the built scripts are (the launcher runs from the same folder). */
function scriptsFolder(): string {
  const script = process.argv[1];
  return script ? dirname(script) : join(process.cwd(), "dist");
}

function buildOperations(
  state: Readiness,
  project: ProjectState,
  global: GlobalStats,
  scripts: string,
): Operation[] {
  const run = (script: string, args: string) => `node ${join(scripts, `${script}.js`)} ${args}`.trim();
  const geminiReason = !state.installed
    ? "The Gemini CLI is not installed."
    : !state.authenticated
      ? "Gemini has no credentials (no GEMINI_API_KEY and no saved login)."
      : null;
  const health = countByHealth(project.named_sessions);
  const sessionWords = [
    health.healthy ? `${health.healthy} healthy` : "",
    health.stale ? `${health.stale} stale` : "",
    health.legacy ? `${health.legacy} legacy` : "",
  ].filter(Boolean);
  const searchable = global.memories > 0 || global.total_cache_entries > 0;
  return [
    {
      id: "research",
      label: "Research a topic",
      description:
        "Send one question to Gemini (with piped context or --include-dirs); the answer is cached for this project.",
      available: geminiReason === null,
      reason: geminiReason,
      command: run("query", '--prompt "QUESTION" [--include-dirs DIRS] [--timeout SECONDS]'),
      context: { cache_entries: project.cache_entries },
    },
    {
      id: "sessions",
      label: "Multi-turn research sessions",
      description: sessionWords.length
        ? `${project.named_sessions.length} named session(s): ${sessionWords.join(", ")}.`
        : "Start a named multi-turn session with Gemini, continue it later by name.",
      available: geminiReason === null,
      reason: geminiReason,
      command: run(
        "session",
        'list | create --name NAME --prompt "..." | continue --name NAME --prompt "..."',
      ),
      context: { sessions: project.named_sessions },
    },
    {
      id: "search",
      label: "Search past research",
      description:
        global.memories > 0
          ? `Full-text search over ${global.memories} memories.`
          : global.total_cache_entries > 0
            ? `${global.total_cache_entries} cached answers are not in memory yet: run memory index-offload, then search.`
            : "Search stored memories and indexed answers.",
      available: searchable,
      reason: searchable ? null : "Nothing stored yet: research something or add a memory first.",
      command: run("memory", 'search --query "WORDS"'),
      context: { memories: global.memories, cache_entries: global.total_cache_entries },
    },
    {
      id: "memory",
      label: "Store or manage memories",
      description: "Add findings, store an answer, filter by topic/source/session/date, get or delete one.",
      available: true,
      reason: null,
      command: run("memory", 'add --text "FINDING" --topic TOPIC'),
      context: null,
    },
    {
      id: "status",
      label: "Check Gemini and the plugin",
      description: "Gemini's path and version, credentials, base folder, this project's cache and sessions.",
      available: true,
      reason: null,
      command: run("status", ""),
      context: null,
    },
    {
      id: "sync",
      label: "Maintain the cache and index",
      description: state.initialized
        ? "Stats, check for drift, rebuild the memory index, prune stale entries and session names."
        : "Nothing stored yet; stats and checks will be empty.",
      available: true,
      reason: null,
      command: run("sync", "stats | check | rebuild | prune [--dry-run]"),
      context: { initialized: state.initialized },
    },
  ];
}

/** One suggestion, by priority: install, sign in, continue a session, fix names, else research. */
function suggest(state: Readiness, project: ProjectState, operations: Operation[]): Suggestion {
  const command = (id: OperationId) => operations.find((operation) => operation.id === id)!.command;
  const pick = (operation: OperationId, reason: string, exact?: string): Suggestion => ({
    operation,
    reason,
    command: exact ?? command(operation),
  });
  if (!state.installed) return pick("status", `The Gemini CLI is not installed. ${INSTALL_HINT}`);
  if (!state.authenticated) {
    return pick(
      "status",
      "Gemini has no credentials: ask the user to run `gemini` once to sign in, or to set GEMINI_API_KEY.",
    );
  }
  const sessionScript = command("sessions").split(" ").slice(0, 2).join(" ");
  const healthy = project.named_sessions.filter((session) => session.health === "healthy");
  if (healthy.length > 0) {
    const latest = [...healthy].sort((a, b) =>
      (b.last_used_at ?? "").localeCompare(a.last_used_at ?? ""),
    )[0]!;
    return pick(
      "sessions",
      `Continue the research session "${latest.name}" (${healthy.length} healthy session(s) in this project).`,
      `${sessionScript} continue --name ${latest.name} --prompt "..."`,
    );
  }
  const legacy = project.named_sessions.filter((session) => session.health === "legacy");
  if (legacy.length > 0) {
    return pick(
      "sessions",
      `${legacy.length} legacy session name(s) have no session id: give each one with session adopt.`,
      `${sessionScript} adopt --name ${legacy[0]!.name} --index N`,
    );
  }
  const stale = project.named_sessions.filter((session) => session.health === "stale");
  if (stale.length > 0) {
    return pick(
      "sync",
      `${stale.length} session name(s) point to sessions Gemini no longer has: sync prune removes them.`,
      command("sync").replace(/ stats .*$/, " prune"),
    );
  }
  return pick("research", "Gemini is ready: research a new topic.");
}
