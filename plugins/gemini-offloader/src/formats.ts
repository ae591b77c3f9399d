import { z } from "zod";

/**
 * The files the plugin keeps under its base folder, as zod schemas. Every file carries a `version`;
 * a reader accepts the versions it knows and says clearly when a file is newer than it understands.
 */
export const FORMAT_VERSION = 1 as const;

const isoTimestamp = z.string().describe("ISO 8601 timestamp");

/** `<base>/config.json`: written when the base folder is first used. */
export const ConfigFileSchema = z.object({
  version: z.literal(FORMAT_VERSION),
  created_at: isoTimestamp,
});
export type ConfigFile = z.infer<typeof ConfigFileSchema>;

/** `<base>/projects/<hash>/project.json`: which folder a project hash stands for. */
export const ProjectFileSchema = z.object({
  version: z.literal(FORMAT_VERSION),
  path: z.string(),
  hash: z.string(),
  created_at: isoTimestamp,
});
export type ProjectFile = z.infer<typeof ProjectFileSchema>;

/** One file that a cached answer depended on, as it was when the answer was made. */
export const IncludedFileSchema = z.object({
  path: z.string(),
  size: z.number().int().nonnegative(),
  mtime_ms: z.number(),
});
export type IncludedFile = z.infer<typeof IncludedFileSchema>;

/** `<base>/projects/<hash>/cache/<key>.json`: one cached answer. The full text is in `response_file`. */
export const CacheEntrySchema = z.object({
  version: z.literal(FORMAT_VERSION),
  key: z.string(),
  prompt: z.string(),
  /** The model asked for with --model, or null for Gemini's own choice. */
  model: z.string().nullable(),
  include_dirs: z.array(z.string()),
  /** sha256 of the piped stdin context, or null when there was none. */
  context_sha256: z.string().nullable(),
  files: z.object({
    count: z.number().int().nonnegative(),
    /** sha256 over every included file's path, size and mtime. */
    fingerprint: z.string(),
    /** The files themselves (up to a cap), to name the ones that changed. */
    entries: z.array(IncludedFileSchema),
    truncated: z.boolean(),
  }),
  created_at: isoTimestamp,
  response_file: z.string(),
  response_chars: z.number().int().nonnegative(),
  /** The model that answered, as Gemini reported it. */
  model_used: z.string().nullable(),
  gemini_session_id: z.string().nullable(),
});
export type CacheEntry = z.infer<typeof CacheEntrySchema>;

/** A named session: a name the agent chose, mapped to a Gemini session id. */
export const SessionMappingSchema = z.object({
  session_id: z.string(),
  created_at: isoTimestamp,
  last_used_at: isoTimestamp,
  /** Turns made through this plugin (create/continue/resume), or found on disk when adopted. */
  turns: z.number().int().nonnegative(),
  last_prompt_preview: z.string(),
  model: z.string().nullable(),
  adopted: z.boolean(),
});
export type SessionMapping = z.infer<typeof SessionMappingSchema>;

/**
 * `<base>/projects/<hash>/sessions.json`: the project's named sessions. A bare number is a legacy
 * mapping (a Gemini session index, from the plugin's first versions): it is reported as `legacy`
 * until `session adopt` gives the name a session id.
 */
export const SessionMapFileSchema = z.object({
  version: z.literal(FORMAT_VERSION),
  project_path: z.string(),
  sessions: z.record(z.string(), z.union([SessionMappingSchema, z.number().int()])),
});
export type SessionMapFile = z.infer<typeof SessionMapFileSchema>;

/**
 * The session state of the plugin this one grew from (tinymade-skills' gemini-offloader):
 * `<project>/.gemini-offloader-sessions.json` or `~/.config/gemini-offloader/sessions.json`. It has
 * no version field; `session migrate` reads it as format version 0 and writes `sessions.json`
 * (version 1). A bare number is a session index counted from 0 (oldest first), as that plugin's
 * own migrate read it.
 */
export const SeedSessionStateSchema = z.looseObject({
  named_sessions: z.record(
    z.string(),
    z.union([
      z.number().int().nonnegative(),
      z.looseObject({
        sessionId: z.string().min(1),
        sessionFile: z.string().optional(),
        geminiProjectHash: z.string().optional(),
        createdAt: z.string().optional(),
        lastTurn: z.number().int().nonnegative().optional(),
        lastPromptPreview: z.string().optional(),
      }),
    ]),
  ),
  last_used: z.unknown().optional(),
});
export type SeedSessionState = z.infer<typeof SeedSessionStateSchema>;

export const MEMORY_SOURCES = ["manual", "query", "session", "stdin"] as const;
export type MemorySource = (typeof MEMORY_SOURCES)[number];

/** One memory: a finding the agent stored, or an answer it indexed. */
export const MemorySchema = z.object({
  id: z.string(),
  text: z.string(),
  topic: z.string().nullable(),
  source: z.enum(MEMORY_SOURCES),
  session: z.string().nullable(),
  project_hash: z.string().nullable(),
  project_path: z.string().nullable(),
  created_at: isoTimestamp,
  /** The full answer this memory came from, when it came from one. */
  response_file: z.string().nullable(),
  prompt: z.string().nullable(),
  model: z.string().nullable(),
  /** What was indexed (a cache key or `session:<name>:<turn>`), so indexing twice adds nothing. */
  origin: z.string().nullable(),
});
export type Memory = z.infer<typeof MemorySchema>;

/** `<base>/memory/memories.json`: every memory. `revision` grows with each change. */
export const MemoryStoreFileSchema = z.object({
  version: z.literal(FORMAT_VERSION),
  revision: z.number().int().nonnegative(),
  memories: z.array(MemorySchema),
});
export type MemoryStoreFile = z.infer<typeof MemoryStoreFileSchema>;

/** `<base>/memory/index.json`: the full-text index (MiniSearch) built from a given store revision. */
export const MemoryIndexFileSchema = z.object({
  version: z.literal(FORMAT_VERSION),
  revision: z.number().int().nonnegative(),
  ids: z.array(z.string()),
  minisearch: z.record(z.string(), z.unknown()),
});
export type MemoryIndexFile = z.infer<typeof MemoryIndexFileSchema>;

/** The plugin's file formats, by name. */
export const fileFormats = {
  config: ConfigFileSchema,
  project: ProjectFileSchema,
  "cache-entry": CacheEntrySchema,
  "session-map": SessionMapFileSchema,
  "seed-session-state": SeedSessionStateSchema,
  "memory-store": MemoryStoreFileSchema,
  "memory-index": MemoryIndexFileSchema,
} as const;
export type FileFormatName = keyof typeof fileFormats;

/** A JSON Schema (draft 2020-12) for one of the file formats, generated from its zod schema. */
export function jsonSchemaFor(name: FileFormatName): Record<string, unknown> {
  const schema = z.toJSONSchema(fileFormats[name], { io: "input", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  return { $id: `urn:evals:gemini-offloader:${name}`, title: name, ...schema };
}
