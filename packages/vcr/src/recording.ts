import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRedactor, type RedactOptions, type Redactor, writeFileAtomic } from "@evals/core";
import { z } from "zod";
import { claudeVersionOf } from "./normalize.js";
import { encodeSse, parseSse } from "./sse.js";
import { canonicalJson } from "./stable-json.js";
import type { Interaction, WireRequest, WireResponse } from "./wire.js";

/**
 * A wire-level recording: every request the CLI sent to the Messages API and the response it got,
 * in order, stored so that a replay returns the same bytes. The system prompt and tool list, which
 * every request repeats, are stored once under `shared` and referenced as `{"$shared": "tools-1"}`.
 */

export const RECORDING_VERSION = 1 as const;

const SseEventSchema = z.union([
  z.object({ event: z.string(), data: z.unknown() }).strict(),
  /** An event whose data does not round-trip through JSON.parse/stringify byte for byte. */
  z.object({ event: z.string(), data_text: z.string() }).strict(),
]);

export const StoredBodySchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("sse"), events: z.array(SseEventSchema) }),
  z.object({ kind: z.literal("json"), json: z.unknown() }),
  z.object({ kind: z.literal("text"), text: z.string() }),
]);

export const RecordedInteractionSchema = z.object({
  index: z.number().int().nonnegative(),
  request: z.object({
    method: z.string(),
    path: z.string(),
    headers: z.record(z.string(), z.string()),
    body: z.unknown().optional(),
    raw_body: z.string().optional(),
  }),
  response: z.object({
    status: z.number().int(),
    headers: z.record(z.string(), z.string()),
    body: StoredBodySchema,
  }),
  duration_ms: z.number().nonnegative().optional(),
  error: z.string().optional(),
});

export const RecordingSchema = z.object({
  version: z.literal(RECORDING_VERSION),
  format: z.literal("evals-vcr-recording"),
  /** ISO time of the recording. */
  recorded_at: z.string(),
  /**
   * The Claude Code version that made the recording: from the first request whose user-agent
   * (`claude-cli/2.1.330 …`) or system prompt billing line (`cc_version=2.1.330.…`) names it. A
   * replay with another version matches without the version-dependent parts of the requests.
   */
  claude_version: z.string().optional(),
  /** The model of the first Messages request. */
  model: z.string().optional(),
  /** Free-form facts about the recording (suite, case, prompt, ...). */
  metadata: z.record(z.string(), z.unknown()).default({}),
  interactions: z.array(RecordedInteractionSchema),
  /**
   * SHA-256 (hex) of every recorded response, written at record time and checked before a replay:
   * a hand-edited answer that did not recompute it is refused (see the README's "Integrity").
   */
  responses_sha256: z.string().optional(),
  /** Values that many requests repeat (system prompts, tool lists), referenced as {"$shared": key}. */
  shared: z.record(z.string(), z.unknown()).default({}),
});

export type StoredBody = z.infer<typeof StoredBodySchema>;
export type RecordedInteraction = z.infer<typeof RecordedInteractionSchema>;
export type Recording = z.infer<typeof RecordingSchema>;

/** Request headers that say nothing about the exchange, or change on every run. */
const DROPPED_REQUEST_HEADERS =
  /^(host|content-length|connection|accept-encoding|accept|content-type|x-stainless-.*|x-claude-code-session-id)$/;
/** Response headers worth keeping (the rest are transport details or vary on every call). */
const KEPT_RESPONSE_HEADER =
  /^(content-type|request-id|x-request-id|anthropic-.*|retry-after|x-should-retry)$/;

/** Stores a body so that `bodyText(storeBody(text, type)) === text`, readable where possible. */
export function storeBody(text: string, contentType = ""): StoredBody {
  if (contentType.includes("text/event-stream")) {
    const events = parseSse(text).map((event) => {
      try {
        const data = JSON.parse(event.data);
        if (JSON.stringify(data) === event.data) return { event: event.event, data };
      } catch {
        // not JSON: keep the text
      }
      return { event: event.event, data_text: event.data };
    });
    const stored: StoredBody = { kind: "sse", events };
    if (bodyText(stored) === text) return stored;
    return { kind: "text", text };
  }
  if (text.length > 0) {
    try {
      const json = JSON.parse(text);
      if (JSON.stringify(json) === text) return { kind: "json", json };
    } catch {
      // not JSON
    }
  }
  return { kind: "text", text };
}

/** The exact body text of a stored body. */
export function bodyText(body: StoredBody): string {
  if (body.kind === "text") return body.text;
  if (body.kind === "json") return JSON.stringify(body.json);
  return encodeSse(
    body.events.map((event) => ({
      event: event.event,
      data: "data_text" in event ? event.data_text : JSON.stringify(event.data),
    })),
  );
}

const SHARED_FIELDS = ["system", "tools"] as const;
/** Strings at least this long are stored once in `shared` (the CLI repeats its context blocks). */
const SHARED_TEXT_LENGTH = 1024;

function shareLongTexts(value: unknown, share: (text: string) => unknown): unknown {
  if (typeof value === "string") return value.length >= SHARED_TEXT_LENGTH ? share(value) : value;
  if (Array.isArray(value)) return value.map((item) => shareLongTexts(item, share));
  if (value !== null && typeof value === "object") {
    if (isSharedRef(value)) return value;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = shareLongTexts(item, share);
    return out;
  }
  return value;
}

function resolveShared(value: unknown, shared: Record<string, unknown>, where: string): unknown {
  if (isSharedRef(value)) {
    if (!(value.$shared in shared)) throw new Error(`${where} refers to missing shared "${value.$shared}"`);
    return shared[value.$shared];
  }
  if (Array.isArray(value))
    return value.map((item, index) => resolveShared(item, shared, `${where}[${index}]`));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value))
      out[key] = resolveShared(item, shared, `${where}.${key}`);
    return out;
  }
  return value;
}

function isSharedRef(value: unknown): value is { $shared: string } {
  return (
    value !== null &&
    typeof value === "object" &&
    !Array.isArray(value) &&
    Object.keys(value).length === 1 &&
    typeof (value as { $shared?: unknown }).$shared === "string"
  );
}

export interface RecordingOptions {
  redact?: RedactOptions;
  metadata?: Record<string, unknown>;
  /** Defaults to now. */
  recordedAt?: string;
}

/** Builds a recording from a server's interactions, with secrets redacted. */
export function recordingFromInteractions(
  interactions: readonly Interaction[],
  options: RecordingOptions = {},
): Recording {
  const redactor = createRedactor(options.redact);
  const shared: Record<string, unknown> = {};
  const sharedKeys = new Map<string, string>();
  const counters: Record<string, number> = {};

  const share = (field: string, value: unknown): unknown => {
    const canonical = `${field}:${canonicalJson(value)}`;
    let key = sharedKeys.get(canonical);
    if (!key) {
      counters[field] = (counters[field] ?? 0) + 1;
      key = `${field}-${counters[field]}`;
      sharedKeys.set(canonical, key);
      shared[key] = value;
    }
    return { $shared: key };
  };

  const stored = interactions.map((interaction): RecordedInteraction => {
    const { request, response } = interaction;
    const headers: Record<string, string> = {};
    for (const name of Object.keys(request.headers).sort()) {
      if (!DROPPED_REQUEST_HEADERS.test(name)) headers[name] = request.headers[name]!;
    }
    let body: unknown = request.body === undefined ? undefined : redactor.value(request.body);
    if (body !== null && typeof body === "object" && !Array.isArray(body)) {
      const copy = { ...(body as Record<string, unknown>) };
      for (const field of SHARED_FIELDS)
        if (copy[field] !== undefined) copy[field] = share(field, copy[field]);
      body = shareLongTexts(copy, (value) => share("text", value));
    }
    const responseHeaders: Record<string, string> = {};
    for (const name of Object.keys(response.headers).sort()) {
      if (KEPT_RESPONSE_HEADER.test(name)) responseHeaders[name] = response.headers[name]!;
    }
    return {
      index: interaction.index,
      request: {
        method: request.method,
        path: request.path,
        headers: redactor.headers(headers),
        ...(body !== undefined ? { body } : {}),
        ...(request.raw_body !== undefined ? { raw_body: redactor.text(request.raw_body) } : {}),
      },
      response: {
        status: response.status,
        headers: redactor.headers(responseHeaders),
        body: storeBody(redactor.text(response.body), response.headers["content-type"]),
      },
      duration_ms: interaction.duration_ms,
      ...(interaction.error ? { error: interaction.error } : {}),
    };
  });

  const first = interactions.find((interaction) => interaction.request.body?.model);
  const claudeVersion = interactions
    .map((interaction) => claudeVersionOf(interaction.request))
    .find((version) => version !== undefined);
  return {
    version: RECORDING_VERSION,
    format: "evals-vcr-recording",
    recorded_at: options.recordedAt ?? new Date().toISOString(),
    ...(claudeVersion ? { claude_version: claudeVersion } : {}),
    ...(first?.request.body?.model ? { model: first.request.body.model } : {}),
    metadata: redactor.value(options.metadata ?? {}),
    shared: redactor.value(shared),
    interactions: stored,
    responses_sha256: responsesDigest({ interactions: stored }),
  };
}

/** A digest of every recorded response (the `responses_sha256` of a recording). */
export function responsesDigest(recording: Pick<Recording, "interactions">): string {
  const hash = createHash("sha256");
  for (const interaction of recording.interactions)
    hash.update(canonicalJson(interaction.response)).update("\n");
  return hash.digest("hex");
}

/** The request of a recorded interaction, with its shared parts put back. */
export function recordedRequest(recording: Recording, interaction: RecordedInteraction): WireRequest {
  const { body, raw_body, ...rest } = interaction.request;
  const resolved = resolveShared(
    body,
    recording.shared,
    `recording interaction ${interaction.index}: request.body`,
  );
  return {
    ...rest,
    ...(resolved !== undefined ? { body: resolved as WireRequest["body"] } : {}),
    ...(raw_body !== undefined ? { raw_body } : {}),
  };
}

/** The response of a recorded interaction, as the bytes to send back. */
export function recordedResponse(interaction: RecordedInteraction): WireResponse {
  const { status, headers, body } = interaction.response;
  return { status, headers: { ...headers }, body: bodyText(body) };
}

/** Parses and validates a recording; errors name the file and the field. */
export function parseRecording(value: unknown, source = "recording"): Recording {
  const version = (value as { version?: unknown } | null)?.version;
  if (typeof version === "number" && version > RECORDING_VERSION) {
    throw new Error(
      `${source}: recording format version ${version} is newer than this @evals/vcr understands (${RECORDING_VERSION}); upgrade @evals/vcr`,
    );
  }
  const parsed = RecordingSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${source} (field ${issue.path.join(".") || "(root)"}): ${issue.message}`);
  }
  return parsed.data;
}

export function readRecording(file: string): Recording {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new Error(`cannot read recording ${file}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file}: not valid JSON: ${(error as Error).message}`);
  }
  return parseRecording(value, file);
}

/**
 * Serializes a file atomically (temp file + rename), after a last scan for secrets: a file that
 * would still contain one is not written.
 */
export function writeSecretFreeFile(file: string, text: string, redactor: Redactor): void {
  const leaks = redactor.leaks(text);
  if (leaks.length > 0) {
    throw new Error(`refusing to write ${file}: it would contain secrets (${leaks.join(", ")})`);
  }
  writeFileAtomic(file, text);
}

export function writeRecording(file: string, recording: Recording, redact?: RedactOptions): void {
  // Not key-sorted: stored response events must re-serialize to the exact bytes that were received,
  // and the order of every other field is fixed by the schema.
  const checked = parseRecording(recording, file);
  const text = `${JSON.stringify(checked, null, 2)}\n`;
  writeSecretFreeFile(file, text, createRedactor(redact));
}
