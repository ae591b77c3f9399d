import type { RedactOptions } from "@evals/core";
import { errorBodyFor } from "./error-bodies.js";
import { type Recording, recordingFromInteractions, writeRecording } from "./recording.js";
import type { Interaction, ModelSource, SourceResponse, WireRequest } from "./wire.js";
import { isModelPath, jsonResponse, type ModelApi } from "./wire.js";

/** The Anthropic API, the upstream of a live recording when none is given. */
export const ANTHROPIC_API_URL = "https://api.anthropic.com";
/** The OpenAI API, the upstream of a live Responses API recording (Codex) when none is given. */
export const OPENAI_API_URL = "https://api.openai.com";
/** The Gemini API, the upstream of a live recording with `modelApi: "gemini"` when none is given. */
export const GEMINI_API_URL = "https://generativelanguage.googleapis.com";

/** Per model API: the default upstream, the env var of its key, and how the key is sent. */
const UPSTREAMS: Record<ModelApi, { url: string; keyEnv: string; auth: (key: string) => [string, string] }> =
  {
    "anthropic-messages": {
      url: ANTHROPIC_API_URL,
      keyEnv: "ANTHROPIC_API_KEY",
      auth: (key) => ["x-api-key", key],
    },
    "openai-responses": {
      url: OPENAI_API_URL,
      keyEnv: "OPENAI_API_KEY",
      auth: (key) => ["authorization", `Bearer ${key}`],
    },
    gemini: {
      url: GEMINI_API_URL,
      keyEnv: "GEMINI_API_KEY",
      auth: (key) => ["x-goog-api-key", key],
    },
  };

/** The env var that holds the key of `modelApi`'s real API (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY). */
export function apiKeyEnv(modelApi: ModelApi = "anthropic-messages"): string {
  return UPSTREAMS[modelApi].keyEnv;
}

export interface PassthroughOptions {
  /**
   * The API the CLI speaks (default "anthropic-messages"): picks the default upstream, the key's env var
   * and how it is sent (ANTHROPIC_API_KEY as x-api-key; OPENAI_API_KEY as a bearer token; GEMINI_API_KEY
   * as x-goog-api-key).
   */
  modelApi?: ModelApi;
  /** Where to forward requests: the real API by default, or another model server. */
  upstream?: string;
  /**
   * The API key to send upstream instead of the CLI's own (so the CLI can run with a dummy key).
   * Defaults to ANTHROPIC_API_KEY for a non-loopback upstream.
   */
  apiKey?: string;
  /** Per-request timeout in ms (default 10 minutes, like the CLI's). */
  timeoutMs?: number;
}

export interface RecordingSourceOptions extends PassthroughOptions {
  /** Write the recording there when the server closes. */
  file?: string;
  /** Extra secrets and patterns to redact (API keys and sk-ant- tokens always are). */
  redact?: RedactOptions;
  /** Stored in the recording's `metadata` (suite, case, prompt, ...). */
  metadata?: Record<string, unknown>;
}

/** A source that forwards to an upstream and keeps what it saw. */
export interface RecordingSource extends ModelSource {
  /** The recording of everything so far (redacted). */
  recording(interactions: readonly Interaction[]): Recording;
  /** Do not write the file on close (the run failed and its recording is not worth keeping). */
  discard(): void;
}

const DROPPED_FORWARD_HEADERS = new Set([
  "host",
  "content-length",
  "connection",
  "accept-encoding",
  "keep-alive",
]);
const DROPPED_RESPONSE_HEADERS = new Set([
  "content-length",
  "content-encoding",
  "transfer-encoding",
  "connection",
]);

/** Whether a URL points at this machine's loopback interface. */
export function isLoopbackUrl(url: string): boolean {
  const { hostname } = new URL(url);
  return hostname === "127.0.0.1" || hostname === "localhost" || hostname === "[::1]" || hostname === "::1";
}

function forwarder(options: PassthroughOptions) {
  const api = UPSTREAMS[options.modelApi ?? "anthropic-messages"];
  const upstream = (options.upstream ?? api.url).replace(/\/+$/, "");
  const loopback = isLoopbackUrl(upstream);
  const apiKey = options.apiKey ?? (loopback ? undefined : process.env[api.keyEnv]);
  if (!loopback && !apiKey) {
    throw new Error(
      `forwarding to ${upstream} needs an API key: set ${api.keyEnv} (or pass apiKey) to record a live run`,
    );
  }
  const forward = async (request: WireRequest): Promise<SourceResponse> => {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (!DROPPED_FORWARD_HEADERS.has(name)) headers[name] = value;
    }
    if (apiKey) {
      delete headers["x-api-key"];
      delete headers["x-goog-api-key"];
      delete headers.authorization;
      const [name, value] = api.auth(apiKey);
      headers[name] = value;
    }
    const hasBody = request.method !== "GET" && request.method !== "HEAD";
    const body = request.raw_body ?? (request.body !== undefined ? JSON.stringify(request.body) : undefined);
    let response: Response;
    try {
      response = await fetch(`${upstream}${request.path}`, {
        method: request.method,
        headers,
        ...(hasBody && body !== undefined ? { body } : {}),
        signal: AbortSignal.timeout(options.timeoutMs ?? 600_000),
      });
    } catch (error) {
      const message = `the upstream ${upstream} did not answer: ${(error as Error).message}`;
      return { ...jsonResponse(502, errorBodyFor(request.path, 502, message)), error: message };
    }
    const responseHeaders: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      if (!DROPPED_RESPONSE_HEADERS.has(name)) responseHeaders[name] = value;
    });
    if (!response.body) return { status: response.status, headers: responseHeaders, body: "" };
    // Passed on chunk by chunk: the CLI sees the model's stream as it comes.
    return { status: response.status, headers: responseHeaders, stream: response.body };
  };
  return { forward, apiKey };
}

/**
 * Why a run's interactions are no recording worth keeping: the model never answered (the CLI did
 * not start, or every call failed), or the upstream did not answer one (its error is kept). Such a
 * recording, once written, would be replayed as if the run had been recorded.
 */
export function failedRecording(interactions: readonly Interaction[]): string | undefined {
  const failed = interactions.find((interaction) => interaction.error);
  if (failed) return `interaction #${failed.index} failed: ${failed.error}`;
  const answered = interactions.some(
    (interaction) => isModelPath(interaction.request.path) && interaction.response.status === 200,
  );
  return answered ? undefined : `the model answered no request (${interactions.length} interactions)`;
}

/** Forwards every request to the upstream and stores nothing (the `off` mode of the wire level). */
export function passthrough(options: PassthroughOptions = {}): ModelSource {
  const { forward } = forwarder(options);
  return { name: "passthrough", respond: (request) => forward(request) };
}

/**
 * Forwards every request to the upstream (the real API, or another model server), streaming each
 * response through as it arrives, and records every request/response pair; with `file`, writes the
 * redacted recording when the server closes.
 */
export function recording(options: RecordingSourceOptions = {}): RecordingSource {
  const { forward, apiKey } = forwarder(options);
  const redact: RedactOptions = {
    ...options.redact,
    secrets: [...(options.redact?.secrets ?? []), ...(apiKey ? [apiKey] : [])],
  };
  const toRecording = (interactions: readonly Interaction[]) =>
    recordingFromInteractions(interactions, {
      redact,
      metadata: {
        ...(options.metadata ?? {}),
        upstream: isLoopbackUrl(options.upstream ?? UPSTREAMS[options.modelApi ?? "anthropic-messages"].url)
          ? "loopback"
          : "api",
      },
    });
  let discarded = false;
  return {
    name: "record",
    respond: (request) => forward(request),
    recording: toRecording,
    discard() {
      discarded = true;
    },
    async close(interactions) {
      if (!options.file || discarded || failedRecording(interactions)) return;
      // Written to a temporary file and renamed over the old one: a good recording is only ever
      // replaced by a whole new one.
      writeRecording(options.file, toRecording(interactions), redact);
    },
  };
}
