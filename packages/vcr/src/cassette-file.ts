import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import {
  type AgentRunResult,
  AgentRunResultSchema,
  createRedactor,
  listToolCalls,
  type RedactOptions,
  type Run,
  RunSchema,
} from "@evals/core";
import { z } from "zod";
import { writeSecretFreeFile } from "./recording.js";
import { canonicalJson, stableHash, stableStringify } from "./stable-json.js";

/**
 * A tool-level cassette: what one agent run did (its Run and result), with the facts needed to find
 * it again (suite, case, prompt, options) and a list of its tool calls for reviewers. Replaying it
 * never starts the agent.
 */

export const CASSETTE_VERSION = 1 as const;

export const CassetteToolCallSchema = z.object({
  agent: z.string(),
  id: z.string(),
  name: z.string(),
  input: z.record(z.string(), z.unknown()),
  status: z.enum(["ok", "error", "denied", "incomplete"]),
  output: z.unknown().optional(),
  error: z.string().optional(),
});

export const CassetteMetadataSchema = z.object({
  /** The suite the case was recorded under ("" for none: the case id alone keys it). */
  suite: z.string(),
  case_id: z.string(),
  /** The case's human name, when it has one. */
  case_name: z.string().optional(),
  /** ISO time of the recording. */
  recorded_at: z.string(),
  /** The prompt, or the prompts of a multi-turn conversation. */
  prompt: z.union([z.string(), z.array(z.string())]),
  /** The run options that shape the run (model, tools, permission mode, ...), as given. */
  options: z.record(z.string(), z.unknown()).default({}),
  /** Hash of suite + case id + prompt + options: part of the file name, so a changed case is recorded anew. */
  key: z.string(),
  claude_version: z.string().optional(),
  model: z.string().optional(),
});

export const CassetteSchema = z.object({
  version: z.literal(CASSETTE_VERSION),
  format: z.literal("evals-vcr-cassette"),
  /** "suite/case-id". */
  name: z.string(),
  metadata: CassetteMetadataSchema,
  /** The run's tool calls, for reading in a review: derived from `run`, checked on load. */
  tool_calls: z.array(CassetteToolCallSchema),
  /** The agent's result, without its run (which is `run`). */
  result: AgentRunResultSchema.omit({ run: true }),
  run: RunSchema,
});

export type CassetteToolCall = z.infer<typeof CassetteToolCallSchema>;
export type Cassette = z.infer<typeof CassetteSchema>;

export interface CassetteIdentity {
  /**
   * The suite: the recordings' sub-folder of the cassette folder and part of their key. "" for
   * none: the recordings lie in the cassette folder itself, keyed by the case id alone.
   */
  suite: string;
  caseId: string;
  /** The prompt, or the prompts of a multi-turn conversation (one user turn each). */
  prompt: string | string[];
  /** JSON-able run options; functions and undefined values are left out of the key. */
  options?: Record<string, unknown>;
}

/** A name safe in any file system: letters, digits, ".", "_" and "-". */
export function slug(value: string): string {
  const cleaned = value
    .normalize("NFKD")
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/-+/g, "-")
    .replace(/^[-.]+|-+$/g, "")
    .slice(0, 80);
  return cleaned || "unnamed";
}

/** The options as stored and hashed: JSON values only, keys sorted. */
export function jsonOptions(options: Record<string, unknown> = {}): Record<string, unknown> {
  return JSON.parse(canonicalJson(options)) as Record<string, unknown>;
}

/**
 * The hash that goes into a cassette's name: of the exact suite and case id (the readable part of
 * the name is a lossy slug, so `team/x` and `team-x` must differ here), the prompt and the options.
 */
export function cassetteKey(
  identity: Pick<CassetteIdentity, "suite" | "caseId" | "prompt" | "options">,
): string {
  return stableHash({
    suite: identity.suite,
    case_id: identity.caseId,
    prompt: identity.prompt,
    options: jsonOptions(identity.options),
  });
}

/**
 * Where a case's cassette lives: `<dir>/<suite>/<case-id>.<hash>.<extension>` (`<dir>/<case-id>.<hash>.<extension>`
 * without a suite). Stable across runs (never a timestamp); the hash changes when the case id, the
 * suite, the prompt or the options change.
 */
export function cassettePath(
  identity: CassetteIdentity & { dir?: string },
  extension = "cassette.json",
): string {
  const dir = resolve(identity.dir ?? "cassettes");
  const folder = identity.suite ? join(dir, slug(identity.suite)) : dir;
  return join(folder, `${slug(identity.caseId)}.${cassetteKey(identity)}.${extension}`);
}

/** The identity fields a cassette or recording stores in its `metadata`. */
export function identityMetadata(identity: CassetteIdentity): Record<string, unknown> {
  return {
    suite: identity.suite,
    case_id: identity.caseId,
    prompt: identity.prompt,
    options: jsonOptions(identity.options),
    key: cassetteKey(identity),
  };
}

/**
 * Why a stored cassette or recording (its `metadata`) is not the one of `identity`, or undefined
 * when it is: a file name can be shared by two cases (a hand-copied file, a slug), so what the file
 * says it recorded decides, never its name.
 */
export function identityMismatch(
  metadata: Record<string, unknown>,
  identity: CassetteIdentity,
): string | undefined {
  const expected = identityMetadata(identity);
  for (const field of ["case_id", "suite", "prompt", "options"] as const) {
    const stored = metadata[field] ?? (field === "suite" ? "" : undefined);
    if (canonicalJson(stored) !== canonicalJson(expected[field])) {
      const [was, now] = whereTheyDiffer(JSON.stringify(stored) ?? "(none)", JSON.stringify(expected[field]));
      return `it was recorded for ${field} ${was}, not ${now}`;
    }
  }
  return undefined;
}

/** Two long values shortened to where they first differ (a prompt may be pages long). */
function whereTheyDiffer(a: string, b: string, width = 120): [string, string] {
  if (a.length <= width && b.length <= width) return [a, b];
  let at = 0;
  while (at < a.length && a[at] === b[at]) at++;
  const from = Math.max(0, at - 40);
  const cut = (text: string) =>
    `${from > 0 ? "…" : ""}${text.slice(from, from + width)}${text.length > from + width ? "…" : ""}`;
  return [cut(a), cut(b)];
}

/**
 * What differs between a case and the cassette or recording of it in `file` (its prompt, options ...;
 * see identityMismatch), for the message saying it no longer applies.
 */
export function storedIdentityMismatch(file: string, identity: CassetteIdentity): string | undefined {
  const metadata = storedMetadata(file);
  return metadata && identityMismatch(metadata, identity);
}

/** The metadata stored in the cassette or recording `file` ({} when it has none); undefined when it cannot be read as JSON. */
function storedMetadata(file: string): Record<string, unknown> | undefined {
  let stored: unknown;
  try {
    stored = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
  const metadata = (stored as { metadata?: unknown } | null)?.metadata;
  return metadata && typeof metadata === "object" ? (metadata as Record<string, unknown>) : {};
}

/**
 * Other cassettes (or recordings) of the same case in the same folder, recorded for another prompt
 * or options: for error messages, and to remove once the case is recorded anew. A file that stores
 * another suite or case id is left out (another case's id may have the same slug).
 */
export function siblingCassettes(
  file: string,
  identity?: Pick<CassetteIdentity, "suite" | "caseId">,
): string[] {
  const folder = dirname(file);
  const name = basename(file);
  const match = /^(.*)\.[0-9a-f]{8}\.(.+)$/.exec(name);
  if (!match || !existsSync(folder)) return [];
  const [, caseSlug, extension] = match;
  return readdirSync(folder)
    .filter((entry) => entry !== name && entry.startsWith(`${caseSlug}.`) && entry.endsWith(`.${extension}`))
    .filter((entry) => /^[0-9a-f]{8}$/.test(entry.slice(caseSlug!.length + 1, -(extension!.length + 1))))
    .map((entry) => join(folder, entry))
    .filter((sibling) => !identity || storedIdentityIs(sibling, identity));
}

/** Whether the cassette or recording in `file` is not known to be another case's (by what it stores). */
function storedIdentityIs(file: string, identity: Pick<CassetteIdentity, "suite" | "caseId">): boolean {
  const metadata = storedMetadata(file);
  if (typeof metadata?.case_id !== "string") return true;
  return metadata.case_id === identity.caseId && (metadata.suite ?? "") === identity.suite;
}

function toolCallsOf(run: Run): CassetteToolCall[] {
  return listToolCalls(run).map((call) => ({
    agent: call.agent,
    id: call.id,
    name: call.name,
    input: call.input,
    status: call.status,
    ...(call.result?.output !== undefined ? { output: call.result.output } : {}),
    ...(call.result?.error !== undefined ? { error: call.result.error } : {}),
  }));
}

export interface BuildCassetteOptions extends CassetteIdentity {
  caseName?: string;
  result: AgentRunResult;
  recordedAt?: string;
}

/** A cassette for a finished run. */
export function buildCassette(options: BuildCassetteOptions): Cassette {
  const { run, output_dir: _outputDir, ...result } = options.result;
  return {
    version: CASSETTE_VERSION,
    format: "evals-vcr-cassette",
    name: options.suite ? `${options.suite}/${options.caseId}` : options.caseId,
    metadata: {
      suite: options.suite,
      case_id: options.caseId,
      ...(options.caseName ? { case_name: options.caseName } : {}),
      recorded_at: options.recordedAt ?? new Date().toISOString(),
      prompt: options.prompt,
      options: jsonOptions(options.options),
      key: cassetteKey(options),
      ...(run.claude_version ? { claude_version: run.claude_version } : {}),
      ...(run.model ? { model: run.model } : {}),
    },
    tool_calls: toolCallsOf(run),
    result,
    run,
  };
}

/** Parses and validates a cassette; errors name the source and the field. */
export function parseCassette(value: unknown, source = "cassette"): Cassette {
  const version = (value as { version?: unknown } | null)?.version;
  if (typeof version === "number" && version > CASSETTE_VERSION) {
    throw new Error(
      `${source}: cassette format version ${version} is newer than this @evals/vcr understands (${CASSETTE_VERSION}); upgrade @evals/vcr`,
    );
  }
  const parsed = CassetteSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${source} (field ${issue.path.join(".") || "(root)"}): ${issue.message}`);
  }
  const cassette = parsed.data;
  const derived = toolCallsOf(cassette.run);
  if (canonicalJson(derived) !== canonicalJson(cassette.tool_calls)) {
    const at = derived.findIndex(
      (call, index) => canonicalJson(call) !== canonicalJson(cassette.tool_calls[index]),
    );
    const index = at === -1 ? Math.min(derived.length, cassette.tool_calls.length) : at;
    throw new Error(
      `${source} (field tool_calls.${index}): tool_calls does not match run.events (they list ${cassette.tool_calls.length} calls, the run has ${derived.length}); tool_calls is a summary of the run: edit run.events, or record the case again`,
    );
  }
  return cassette;
}

export function readCassette(file: string): Cassette {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new Error(`cannot read cassette ${file}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file}: not valid JSON: ${(error as Error).message}`);
  }
  return parseCassette(value, file);
}

/** Writes a cassette as pretty, key-sorted JSON, secrets redacted, atomically. */
export function writeCassette(file: string, cassette: Cassette, redact?: RedactOptions): void {
  const redactor = createRedactor(redact);
  const checked = parseCassette(redactor.value(cassette), file);
  const text = stableStringify(checked, [
    "version",
    "format",
    "name",
    "metadata",
    "tool_calls",
    "result",
    "run",
  ]);
  writeSecretFreeFile(file, text, redactor);
}

/** The AgentRunResult a cassette replays (origin "cassette"). */
export function cassetteResult(cassette: Cassette): AgentRunResult {
  return { ...structuredClone(cassette.result), run: structuredClone(cassette.run), origin: "cassette" };
}
