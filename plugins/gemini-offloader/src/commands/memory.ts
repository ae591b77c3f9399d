import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { listCacheEntries } from "../cache/cache-store.js";
import {
  optionalString,
  parseAction,
  parseSince,
  positiveInteger,
  requiredString,
  UsageError,
} from "../cli/args.js";
import type { ScriptOutcome } from "../cli/run-script.js";
import { readPipedStdin, stdinLimits } from "../cli/stdin.js";
import type { ScriptContext } from "../context.js";
import { MEMORY_SOURCES, type Memory, type MemorySource } from "../formats.js";
import { EXIT } from "../gemini/diagnose.js";
import {
  changeMemories,
  filterMemories,
  MEMORY_SCOPES,
  type MemoryFilters,
  type MemoryScope,
  newMemoryId,
  readMemories,
  scopeOf,
  searchMemories,
} from "../memory/memory-store.js";
import { readSessionMap } from "../sessions/session-map.js";
import type { ProjectLayout } from "../store/locations.js";
import { knownProjects } from "./project-state.js";

export const MEMORY_USAGE = `Usage: node dist/memory.js <action> [options]
  add            -t/--text TEXT (or piped stdin) [--topic T] [--source S] [--scope user|project|session] [--session NAME]
  search         -q/--query TEXT [-l/--limit N] [--scope S,...] [filters]   full-text search, best first
  filter         [filters] [--scope S,...] [-l/--limit N]                   newest first
  get            --id ID                                 one memory, whole
  delete         --id ID
  store-response [--topic T] [--session NAME] [-f/--file FILE]
                 store an answer: the JSON printed by query.js or session.js, piped in (or --file)
  index-offload  [--project current|all]                 add every cached answer and session turn not yet stored
Scopes: user (every project), project (this project), session (a named session of this project; --session NAME).
        add: default project, or session with --session. search/filter: default all three, comma list to narrow.
Filters: --topic T, --source ${MEMORY_SOURCES.join("|")}, --session NAME, --since (2026-01-31 | 7d | 12h),
         --project current|all|<hash> (default all).
Memory never calls Gemini and works without it. Exit codes: 0 done, 1 failure (e.g. no such id), 2 bad arguments.`;

const ACTIONS = ["add", "search", "filter", "get", "delete", "store-response", "index-offload"] as const;
type Action = (typeof ACTIONS)[number];

const OPTIONS = {
  text: { type: "string", short: "t" },
  topic: { type: "string" },
  source: { type: "string" },
  session: { type: "string" },
  query: { type: "string", short: "q" },
  limit: { type: "string", short: "l" },
  scope: { type: "string" },
  since: { type: "string" },
  project: { type: "string" },
  id: { type: "string" },
  file: { type: "string", short: "f" },
} as const;

const FILTERS = ["topic", "source", "session", "since", "project"];
const ALLOWED: Record<Action, string[]> = {
  add: ["text", "topic", "source", "session", "scope"],
  search: ["query", "limit", "scope", ...FILTERS],
  filter: ["limit", "scope", ...FILTERS],
  get: ["id"],
  delete: ["id"],
  "store-response": ["topic", "session", "file"],
  "index-offload": ["project"],
};

type Values = Record<string, string | boolean | string[] | undefined>;

export async function memoryCommand(argv: string[], context: ScriptContext): Promise<ScriptOutcome> {
  const { action, values } = parseAction(argv, ACTIONS, OPTIONS, ALLOWED);
  switch (action) {
    case "add":
      return add(values, context);
    case "search":
      return search(values, context);
    case "filter":
      return filter(values, context);
    case "get":
      return get(values, context);
    case "delete":
      return remove(values, context);
    case "store-response":
      return storeResponse(values, context);
    case "index-offload":
      return indexOffload(values, context);
  }
}

function ok(output: Record<string, unknown>): ScriptOutcome {
  return { exitCode: EXIT.ok, output: { success: true, ...output, error: null } };
}

function source(values: Values, fallback: MemorySource): MemorySource {
  const raw = optionalString(values, "source");
  if (raw === undefined) return fallback;
  if (!MEMORY_SOURCES.includes(raw as MemorySource)) {
    throw new UsageError(`--source must be one of ${MEMORY_SOURCES.join(", ")} (got "${raw}").`);
  }
  return raw as MemorySource;
}

function filters(values: Values, context: ScriptContext): MemoryFilters {
  const since = optionalString(values, "since");
  const project = optionalString(values, "project") ?? "all";
  const sourceValue = values.source === undefined ? undefined : source(values, "manual");
  const scopes = scopeList(values);
  return {
    ...(scopes ? { scopes: { scopes, project: context.project.hash } } : {}),
    ...(optionalString(values, "topic") ? { topic: optionalString(values, "topic") } : {}),
    ...(sourceValue ? { source: sourceValue } : {}),
    ...(optionalString(values, "session") ? { session: optionalString(values, "session") } : {}),
    ...(since ? { since: parseSince(since) } : {}),
    ...(project === "all" ? {} : { project: project === "current" ? context.project.hash : project }),
  };
}

/** --scope for search and filter: one scope or a comma list; undefined (all scopes) without it. */
function scopeList(values: Values): MemoryScope[] | undefined {
  const raw = optionalString(values, "scope");
  if (raw === undefined || raw === "all") return undefined;
  const scopes = raw.split(",").map((each) => each.trim());
  for (const scope of scopes) {
    if (!MEMORY_SCOPES.includes(scope as MemoryScope))
      throw new UsageError(
        `--scope must be ${MEMORY_SCOPES.join(", ")} or all, or a comma list (got "${raw}").`,
      );
  }
  return scopes as MemoryScope[];
}

function newMemory(
  fields: Partial<Memory> & { text: string; source: MemorySource },
  context: ScriptContext,
): Memory {
  return {
    id: newMemoryId(),
    topic: null,
    session: null,
    project_hash: context.project.hash,
    project_path: context.project.root,
    created_at: new Date().toISOString(),
    response_file: null,
    prompt: null,
    model: null,
    origin: null,
    ...fields,
  };
}

/** A memory as listed in search and filter results: its text cut to a preview. */
function listed(memory: Memory) {
  const { text, ...rest } = memory;
  return {
    ...rest,
    text: text.length > 300 ? `${text.slice(0, 299)}…` : text,
    text_chars: text.length,
    scope: scopeOf(memory),
  };
}

async function add(values: Values, context: ScriptContext): Promise<ScriptOutcome> {
  let text = optionalString(values, "text");
  let from: MemorySource = "manual";
  if (text === undefined) {
    text = (await readPipedStdin(stdinLimits(context.env)))?.text.trim();
    from = "stdin";
  }
  if (!text) throw new UsageError("add needs --text TEXT, or the text piped to stdin.");
  const session = optionalString(values, "session") ?? null;
  const scope = addScope(values, session);
  const memory = newMemory(
    {
      text,
      source: source(values, from),
      topic: optionalString(values, "topic") ?? null,
      session,
      ...(scope === "user" ? { project_hash: null, project_path: null } : {}),
    },
    context,
  );
  await changeMemories(context.layout, (memories) => {
    memories.push(memory);
    return { changed: true, result: undefined };
  });
  return ok({ action: "add", scope, memory });
}

/** The scope a new memory goes in: --scope, else session when --session names one, else project. */
function addScope(values: Values, session: string | null): MemoryScope {
  const raw = optionalString(values, "scope") ?? (session ? "session" : "project");
  if (!MEMORY_SCOPES.includes(raw as MemoryScope))
    throw new UsageError(`--scope must be one of ${MEMORY_SCOPES.join(", ")} (got "${raw}").`);
  if (raw === "session" && !session) throw new UsageError("--scope session needs --session NAME.");
  if (raw !== "session" && session)
    throw new UsageError(`--session puts the memory in the session scope; drop --scope ${raw} or --session.`);
  return raw as MemoryScope;
}

function search(values: Values, context: ScriptContext): ScriptOutcome {
  const query = requiredString(values, "query", " (the words to search for)");
  const limit = positiveInteger(values, "limit", 10)!;
  const hits = searchMemories(context.layout, query, filters(values, context), limit);
  return ok({
    action: "search",
    query,
    scopes: scopeList(values) ?? [...MEMORY_SCOPES],
    count: hits.length,
    results: hits.map((hit) => ({ score: hit.score, ...listed(hit.memory) })),
  });
}

function filter(values: Values, context: ScriptContext): ScriptOutcome {
  const limit = positiveInteger(values, "limit", 50)!;
  const memories = filterMemories(context.layout, filters(values, context), limit);
  return ok({ action: "filter", count: memories.length, memories: memories.map(listed) });
}

function get(values: Values, context: ScriptContext): ScriptOutcome {
  const id = requiredString(values, "id");
  const memory = readMemories(context.layout).memories.find((each) => each.id === id);
  if (!memory) return notFound("get", id);
  return ok({ action: "get", memory });
}

async function remove(values: Values, context: ScriptContext): Promise<ScriptOutcome> {
  const id = requiredString(values, "id");
  const removed = await changeMemories(context.layout, (memories) => {
    const at = memories.findIndex((each) => each.id === id);
    if (at === -1) return { changed: false, result: false };
    memories.splice(at, 1);
    return { changed: true, result: true };
  });
  return removed ? ok({ action: "delete", deleted: id }) : notFound("delete", id);
}

function notFound(action: Action, id: string): ScriptOutcome {
  return {
    exitCode: EXIT.failure,
    output: {
      success: false,
      action,
      error: `No memory with id ${id}: see \`memory filter\` or \`memory search\`.`,
    },
  };
}

/**
 * `query.js ... | memory.js store-response` starts both at once, and the query prints only when
 * Gemini has answered, so store-response waits for its required input as long as the Bash tool
 * can run at all (10 min) unless GEMINI_OFFLOADER_STDIN_WAIT_MS says otherwise.
 */
const STORE_RESPONSE_WAIT_MS = 600_000;

function storeResponseStdinLimits(env: NodeJS.ProcessEnv) {
  const limits = stdinLimits(env);
  return env.GEMINI_OFFLOADER_STDIN_WAIT_MS === undefined
    ? { ...limits, firstByteMs: STORE_RESPONSE_WAIT_MS }
    : limits;
}

/**
 * Stores an answer that query.js or session.js printed: the full text from its
 * `full_response_path` (or the printed `response` if that file is gone).
 */
async function storeResponse(values: Values, context: ScriptContext): Promise<ScriptOutcome> {
  const file = optionalString(values, "file");
  const raw = file
    ? readFileSync(resolve(context.cwd, file), "utf8")
    : (await readPipedStdin(storeResponseStdinLimits(context.env)))?.text;
  if (!raw?.trim()) {
    throw new UsageError(
      "store-response needs the JSON printed by query.js or session.js, piped in or given with --file.",
    );
  }
  let printed: Record<string, unknown>;
  try {
    printed = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    throw new UsageError(
      "store-response: the input is not the JSON object that query.js or session.js prints.",
    );
  }
  if (printed.success !== true) {
    return {
      exitCode: EXIT.failure,
      output: {
        success: false,
        action: "store-response",
        error: `Nothing to store: that ${typeof printed.action === "string" ? "session" : "query"} failed (${String(printed.error ?? "no answer")}).`,
      },
    };
  }
  const fullPath = typeof printed.full_response_path === "string" ? printed.full_response_path : null;
  const text =
    fullPath && existsSync(fullPath) ? readFileSync(fullPath, "utf8") : String(printed.response ?? "");
  if (!text.trim()) throw new UsageError("store-response: the JSON has no response to store.");
  const printedSession = printed.session as { name?: unknown } | null | undefined;
  const sessionName =
    optionalString(values, "session") ??
    (typeof printedSession?.name === "string" ? printedSession.name : null);
  const isSession = typeof printed.action === "string";
  const origin = isSession
    ? (fullPath ?? null)
    : typeof printed.cache_key === "string"
      ? printed.cache_key
      : fullPath;
  const memory = newMemory(
    {
      text,
      source: isSession ? "session" : "query",
      topic: optionalString(values, "topic") ?? null,
      session: sessionName,
      response_file: fullPath,
      model: typeof printed.model === "string" ? printed.model : null,
      origin,
    },
    context,
  );
  const stored = await changeMemories(context.layout, (memories) => {
    const existing = origin ? memories.find((each) => each.origin === origin) : undefined;
    if (existing) return { changed: false, result: existing };
    memories.push(memory);
    return { changed: true, result: memory };
  });
  return ok({ action: "store-response", memory: stored, already_stored: stored !== memory });
}

/** Adds every cached answer and session turn (of this project, or all) that memory does not have yet. */
async function indexOffload(values: Values, context: ScriptContext): Promise<ScriptOutcome> {
  const scope = optionalString(values, "project") ?? "current";
  if (scope !== "current" && scope !== "all")
    throw new UsageError(`--project must be current or all (got "${scope}").`);
  const projects =
    scope === "all" ? knownProjects(context.layout).filter((project) => project.root) : [context.project];
  const candidates: Memory[] = [];
  for (const project of projects) candidates.push(...offloadsOf(project, context));
  const added = await changeMemories(context.layout, (memories) => {
    const known = new Set(memories.map((each) => each.origin).filter(Boolean));
    const fresh = candidates.filter((candidate) => !known.has(candidate.origin));
    memories.push(...fresh);
    return { changed: fresh.length > 0, result: fresh };
  });
  return ok({
    action: "index-offload",
    projects: projects.length,
    found: candidates.length,
    indexed: added.length,
    already_indexed: candidates.length - added.length,
    memories: added.map(listed),
  });
}

function offloadsOf(project: ProjectLayout, context: ScriptContext): Memory[] {
  const memories: Memory[] = [];
  const base = { project_hash: project.hash, project_path: project.root };
  for (const { entry } of listCacheEntries(project).entries) {
    if (!existsSync(entry.response_file)) continue;
    memories.push(
      newMemory(
        {
          ...base,
          text: readFileSync(entry.response_file, "utf8"),
          source: "query",
          response_file: entry.response_file,
          prompt: entry.prompt,
          model: entry.model_used ?? entry.model,
          origin: entry.key,
          created_at: entry.created_at,
        },
        context,
      ),
    );
  }
  const names = sessionNames(project);
  if (existsSync(project.sessionResponsesDir)) {
    for (const sessionId of readdirSync(project.sessionResponsesDir).sort()) {
      const folder = join(project.sessionResponsesDir, sessionId);
      for (const turn of readdirSync(folder)
        .filter((name) => name.endsWith(".md"))
        .sort()) {
        const file = join(folder, turn);
        memories.push(
          newMemory(
            {
              ...base,
              text: readFileSync(file, "utf8"),
              source: "session",
              session: names.get(sessionId) ?? null,
              response_file: file,
              origin: file,
            },
            context,
          ),
        );
      }
    }
  }
  return memories;
}

function sessionNames(project: ProjectLayout): Map<string, string> {
  const names = new Map<string, string>();
  try {
    for (const [name, mapping] of Object.entries(readSessionMap(project).sessions)) {
      if (typeof mapping === "object" && !names.has(mapping.session_id)) names.set(mapping.session_id, name);
    }
  } catch {
    // A damaged sessions.json only costs the names here; sync check reports it.
  }
  return names;
}
