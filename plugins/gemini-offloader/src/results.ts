import { z } from "zod";
import { MemorySchema } from "./formats.js";
import { DIAGNOSTIC_TYPES } from "./gemini/diagnose.js";

/**
 * What each script prints: one JSON object, described here as zod schemas (strict: no other
 * keys). Eval suites can parse a script's stdout with them; the unit suite checks every output
 * against them.
 */

export const DiagnosticSchema = z.strictObject({
  type: z.enum(DIAGNOSTIC_TYPES),
  message: z.string(),
  suggestion: z.string(),
  gemini_exit_code: z.number().int().nullable(),
  http_status: z.number().int().nullable(),
});

/** Any script's answer to bad arguments (exit 2), or to --help (exit 0, success true). */
export const UsageResultSchema = z.strictObject({
  success: z.boolean(),
  error: z.string().optional(),
  usage: z.string(),
});

/** What a Gemini-calling script prints when Gemini is not installed (exit 1). */
export const MissingGeminiFields = {
  install_hint: z.string().optional(),
};

export const QueryResultSchema = z.strictObject({
  success: z.boolean(),
  /** The answer, or its beginning when longer than --summary-chars (see truncated). */
  response: z.string().nullable(),
  response_chars: z.number().int().nonnegative(),
  truncated: z.boolean(),
  model: z.string().nullable(),
  cached: z.boolean(),
  stale: z.boolean(),
  changed_files: z.array(z.string()),
  full_response_path: z.string().nullable(),
  output_file: z.string().nullable(),
  session_id: z.string().nullable(),
  cache_key: z.string().nullable(),
  context_chars: z.number().int().nonnegative(),
  context_truncated: z.boolean(),
  duration_ms: z.number().int().nonnegative(),
  diagnostic: DiagnosticSchema.nullable(),
  error: z.string().nullable(),
  ...MissingGeminiFields,
});
export type QueryResult = z.infer<typeof QueryResultSchema>;

export const SessionHealthSchema = z.enum(["healthy", "stale", "legacy"]);

export const NamedSessionSchema = z.strictObject({
  name: z.string(),
  session_id: z.string().nullable(),
  health: SessionHealthSchema,
  turns: z.number().int().nullable(),
  created_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
  last_prompt_preview: z.string().nullable(),
  legacy_index: z.number().int().nullable(),
  adopted: z.boolean(),
});

export const GeminiSessionSchema = z.strictObject({
  index: z.number().int().positive(),
  session_id: z.string(),
  names: z.array(z.string()),
  started_at: z.string(),
  updated_at: z.string(),
  turns: z.number().int().nonnegative(),
  first_prompt: z.string().nullable(),
  last_prompt: z.string().nullable(),
  summary: z.string().nullable(),
  file: z.string(),
});

export const SessionListResultSchema = z.strictObject({
  success: z.literal(true),
  action: z.literal("list"),
  project: z.strictObject({ path: z.string(), hash: z.string() }),
  named: z.array(NamedSessionSchema),
  gemini_sessions: z.array(GeminiSessionSchema),
  error: z.null(),
});

/** create, continue and resume: one turn of a session. */
export const SessionTurnResultSchema = z.strictObject({
  success: z.boolean(),
  action: z.enum(["create", "continue", "resume"]),
  session: z.record(z.string(), z.unknown()).nullable(),
  response: z.string().nullable(),
  response_chars: z.number().int().nonnegative(),
  truncated: z.boolean(),
  full_response_path: z.string().nullable(),
  model: z.string().nullable(),
  turn: z.number().int().nullable(),
  duration_ms: z.number().int().nonnegative(),
  diagnostic: DiagnosticSchema.nullable(),
  error: z.string().nullable(),
});

export const SessionDeleteResultSchema = z.strictObject({
  success: z.literal(true),
  action: z.literal("delete"),
  session_id: z.string().nullable(),
  deleted_from_gemini: z.boolean(),
  files_removed: z.array(z.string()),
  removed_names: z.array(z.string()),
  error: z.null(),
});

export const SessionAdoptResultSchema = z.strictObject({
  success: z.literal(true),
  action: z.literal("adopt"),
  session: z.strictObject({
    name: z.string(),
    session_id: z.string(),
    health: z.literal("healthy"),
    turns: z.number().int(),
  }),
  replaced_legacy: z.boolean(),
  /** Answers of the session saved as turn files (sessions/<id>/turn-NNN.md) for `memory index-offload`. */
  turns_saved: z.number().int(),
  error: z.null(),
});

/** A Gemini session no name points to, as `session discover` lists it. */
export const UnmappedSessionSchema = z.strictObject({
  /** Its index in `session list` (1 = oldest), for `adopt --index`; null for another project's. */
  index: z.number().int().nullable(),
  session_id: z.string(),
  project_path: z.string(),
  is_current_project: z.boolean(),
  started_at: z.string(),
  updated_at: z.string(),
  turns: z.number().int(),
  first_prompt: z.string().nullable(),
  last_prompt: z.string().nullable(),
});

export const SessionDiscoverResultSchema = z.strictObject({
  success: z.literal(true),
  action: z.literal("discover"),
  project: z.strictObject({ path: z.string(), hash: z.string() }),
  all_projects: z.boolean(),
  total_gemini_sessions: z.number().int(),
  unmapped: z.array(UnmappedSessionSchema),
  /** With --adopt: the names given. */
  adopted: z.array(
    z.strictObject({ name: z.string(), session_id: z.string(), turns_saved: z.number().int() }),
  ),
  error: z.null(),
});

export const SessionMigrateResultSchema = z.strictObject({
  success: z.literal(true),
  action: z.literal("migrate"),
  dry_run: z.boolean(),
  /** The files read in an older format (the seed plugin's state file is format version 0). */
  from: z.array(
    z.strictObject({
      file: z.string(),
      format: z.literal("seed-session-state"),
      version: z.literal(0),
      names: z.number().int(),
    }),
  ),
  to: z.strictObject({ file: z.string(), format: z.literal("session-map"), version: z.literal(1) }),
  legacy_index_base: z.union([z.literal(0), z.literal(1)]),
  migrated: z.array(
    z.strictObject({
      name: z.string(),
      session_id: z.string(),
      from: z.enum(["seed-mapping", "seed-index", "legacy-index"]),
      turns: z.number().int(),
    }),
  ),
  already_current: z.array(z.string()),
  failed: z.array(z.strictObject({ name: z.string(), reason: z.string() })),
  error: z.null(),
});

/** What `init` checked, wrote and found already there. */
export const InitResultSchema = z.strictObject({
  success: z.boolean(),
  action: z.enum(["init", "check"]),
  ready: z.boolean(),
  base: z.string(),
  project: z.strictObject({ path: z.string(), hash: z.string() }),
  checks: z.array(
    z.strictObject({
      name: z.enum([
        "node",
        "gemini_installed",
        "gemini_credentials",
        "base_writable",
        "files_valid",
        "seed_state_migrated",
        "gemini_sessions_named",
      ]),
      ok: z.boolean(),
      detail: z.string(),
    }),
  ),
  created: z.array(z.string()),
  existing: z.array(z.string()),
  next_steps: z.array(z.string()),
  install_hint: z.string().optional(),
  error: z.string().nullable(),
});

/** A memory as search and filter list it: the text cut to 300 characters, its full length beside. */
export const MemoryScopeSchema = z.enum(["user", "project", "session"]);

export const ListedMemorySchema = MemorySchema.extend({
  text_chars: z.number().int(),
  /** user (no project), project (one project, no session) or session (a named session). */
  scope: MemoryScopeSchema,
}).strict();

export const MemoryAddResultSchema = z.strictObject({
  success: z.literal(true),
  action: z.literal("add"),
  scope: MemoryScopeSchema,
  memory: MemorySchema,
  error: z.null(),
});

export const MemorySearchResultSchema = z.strictObject({
  success: z.literal(true),
  action: z.literal("search"),
  query: z.string(),
  /** The scopes searched (all three unless --scope narrowed them). */
  scopes: z.array(MemoryScopeSchema),
  count: z.number().int(),
  results: z.array(ListedMemorySchema.extend({ score: z.number() }).strict()),
  error: z.null(),
});

export const MemoryFilterResultSchema = z.strictObject({
  success: z.literal(true),
  action: z.literal("filter"),
  count: z.number().int(),
  memories: z.array(ListedMemorySchema),
  error: z.null(),
});

export const MemoryGetResultSchema = z.strictObject({
  success: z.literal(true),
  action: z.literal("get"),
  memory: MemorySchema,
  error: z.null(),
});

export const MemoryStoreResponseResultSchema = z.strictObject({
  success: z.literal(true),
  action: z.literal("store-response"),
  memory: MemorySchema,
  already_stored: z.boolean(),
  error: z.null(),
});

export const MemoryIndexOffloadResultSchema = z.strictObject({
  success: z.literal(true),
  action: z.literal("index-offload"),
  projects: z.number().int(),
  found: z.number().int(),
  indexed: z.number().int(),
  already_indexed: z.number().int(),
  memories: z.array(ListedMemorySchema),
  error: z.null(),
});

const OperationSchema = z.strictObject({
  id: z.enum(["research", "sessions", "search", "memory", "status", "sync"]),
  label: z.string(),
  description: z.string(),
  available: z.boolean(),
  reason: z.string().nullable(),
  command: z.string(),
  context: z.record(z.string(), z.unknown()).nullable(),
});

const ProjectStateSchema = z.strictObject({
  path: z.string(),
  hash: z.string(),
  cache_entries: z.number().int(),
  named_sessions: z.array(NamedSessionSchema),
  gemini_sessions: z.number().int(),
});

export const LauncherResultSchema = z.strictObject({
  success: z.boolean(),
  ready: z.boolean(),
  installed: z.boolean(),
  authenticated: z.boolean(),
  auth_method: z.enum(["api_key", "vertex_ai", "oauth"]).nullable(),
  state_initialized: z.boolean(),
  hermetic: z.boolean(),
  gemini_path: z.string().nullable(),
  base: z.string(),
  project: ProjectStateSchema,
  global: z.strictObject({
    total_projects: z.number().int(),
    total_cache_entries: z.number().int(),
    total_named_sessions: z.number().int(),
    memories: z.number().int(),
  }),
  operations: z.array(OperationSchema).length(6),
  suggestion: z.strictObject({
    operation: OperationSchema.shape.id,
    reason: z.string(),
    command: z.string(),
  }),
  install_hint: z.string().optional(),
  error: z.string().nullable(),
});
export type LauncherResult = z.infer<typeof LauncherResultSchema>;

const HealthCountsSchema = z.strictObject({
  healthy: z.number().int(),
  stale: z.number().int(),
  legacy: z.number().int(),
});

export const StatusResultSchema = z.strictObject({
  success: z.boolean(),
  installed: z.boolean(),
  gemini: z.strictObject({ path: z.string().nullable(), version: z.string().nullable() }),
  authenticated: z.boolean(),
  auth_method: z.enum(["api_key", "vertex_ai", "oauth"]).nullable(),
  ready: z.boolean(),
  hermetic: z.boolean(),
  gemini_home: z.string(),
  base: z.strictObject({ path: z.string(), initialized: z.boolean() }),
  project: z.strictObject({
    path: z.string(),
    hash: z.string(),
    cache_entries: z.number().int(),
    named_sessions: HealthCountsSchema,
    gemini_sessions: z.number().int(),
  }),
  memory: z.strictObject({ memories: z.number().int(), index_in_sync: z.boolean() }),
  default_timeout_seconds: z.number(),
  install_hint: z.string().optional(),
  error: z.string().nullable(),
});

const IndexStatusSchema = z.strictObject({
  in_sync: z.boolean(),
  store_revision: z.number().int(),
  index_revision: z.number().int().nullable(),
  missing_from_index: z.number().int(),
  extra_in_index: z.number().int(),
  problem: z.string().nullable(),
});

export const SyncStatsResultSchema = z.strictObject({
  success: z.literal(true),
  action: z.literal("stats"),
  base: z.string(),
  projects: z.array(
    z.strictObject({
      hash: z.string(),
      path: z.string().nullable(),
      cache_entries: z.number().int(),
      response_files: z.number().int(),
      named_sessions: HealthCountsSchema,
      bytes: z.number().int(),
    }),
  ),
  totals: z.strictObject({
    projects: z.number().int(),
    cache_entries: z.number().int(),
    response_files: z.number().int(),
    named_sessions: z.number().int(),
    memories: z.number().int(),
    bytes: z.number().int(),
  }),
  memory_index: IndexStatusSchema,
  error: z.null(),
});

export const SyncProblemSchema = z.strictObject({
  kind: z.enum([
    "invalid_file",
    "cache_missing_response",
    "orphan_response",
    "stale_session",
    "legacy_session",
    "index_drift",
  ]),
  project: z.string().nullable(),
  path: z.string(),
  detail: z.string(),
});

export const SyncCheckResultSchema = z.strictObject({
  success: z.literal(true),
  action: z.literal("check"),
  healthy: z.boolean(),
  problems: z.array(SyncProblemSchema),
  error: z.null(),
});

export const SyncRebuildResultSchema = z.strictObject({
  success: z.literal(true),
  action: z.literal("rebuild"),
  rebuilt: z.strictObject({ memories: z.number().int(), revision: z.number().int() }),
  error: z.null(),
});

export const SyncPruneResultSchema = z.strictObject({
  success: z.literal(true),
  action: z.literal("prune"),
  dry_run: z.boolean(),
  removed: z.strictObject({
    cache_entries: z.number().int(),
    response_files: z.number().int(),
    invalid_files: z.number().int(),
    session_names: z.number().int(),
  }),
  paths: z.array(z.string()),
  session_names: z.array(z.string()),
  error: z.null(),
});

/** A script that could not do its job for a reason other than Gemini (exit 1): what went wrong. */
export const FailureResultSchema = z
  .object({ success: z.literal(false), error: z.string() })
  .catchall(z.unknown());
