import type { ModelApi } from "@evals/core";
import type { MessagesRequest } from "./messages-api.js";
import { isResponsesPath } from "./responses-api.js";

/**
 * One HTTP exchange between the CLI and a model server, as sources see it and recordings store it.
 */

export interface WireRequest {
  method: string;
  /** Path with its query string, e.g. `/v1/messages?beta=true`. */
  path: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** The parsed JSON body (a Messages API request for `/v1/messages`), when the body was JSON. */
  body?: MessagesRequest;
  /** The body text when it was not JSON. */
  raw_body?: string;
}

export interface WireResponse {
  status: number;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** The exact body text: JSON, or an SSE stream. */
  body: string;
}

/** One request and its response, numbered in the order the server received them. */
export interface Interaction {
  index: number;
  request: WireRequest;
  response: WireResponse;
  /** Which source answered (scripted, record, replay, ...). */
  source: string;
  duration_ms: number;
  /** Set when the source could not answer normally (a script threw, a replay found no match). */
  error?: string;
}

/** What a source is given besides the request. */
export interface SourceContext {
  /** The index this interaction will have in `server.interactions`. */
  index: number;
  /** The interactions before this one. */
  interactions: readonly Interaction[];
  /** A tool_use id unique within the server: `toolu_vcr_0001`, ... */
  nextToolUseId(): string;
  /** A message id unique within the server: `msg_vcr_0001`, ... */
  nextMessageId(): string;
  /** Aborts when the server closes: a source that waits (a stalled model) stops waiting then. */
  signal?: AbortSignal;
}

/** A complete answer of a source, and optionally why it is not a normal answer. */
export interface BufferedSourceResponse extends WireResponse {
  error?: string;
}

/** An answer passed on chunk by chunk as it arrives (a recording proxy in front of a live API). */
export interface StreamedSourceResponse {
  status: number;
  headers: Record<string, string>;
  stream: AsyncIterable<Uint8Array | string>;
  error?: string;
}

export type SourceResponse = BufferedSourceResponse | StreamedSourceResponse;

/** What answers the requests a model server receives: scripted, recording or replaying. */
export interface ModelSource {
  /** A short name stored on each interaction. */
  readonly name: string;
  respond(request: WireRequest, context: SourceContext): Promise<SourceResponse>;
  /** Called when the server closes (a recording source writes its file here). */
  close?(interactions: readonly Interaction[]): Promise<void>;
}

export function isMessagesPath(path: string): boolean {
  const pathname = path.split("?")[0];
  return pathname === "/v1/messages";
}

/** The wire formats a model server speaks: each CLI's model API (@evals/core's, which runners declare). */
export type { ModelApi };

const GEMINI_CALL =
  /^\/v1(?:beta|alpha)?\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;

/** The model and method of a Gemini API path (`/v1beta/models/M:streamGenerateContent?alt=sse`). */
export function geminiCallOf(path: string): { model: string; method: string } | undefined {
  const match = GEMINI_CALL.exec(path.split("?")[0] ?? path);
  return match ? { model: decodeURIComponent(match[1]!), method: match[2]! } : undefined;
}

/** Whether a path asks a Gemini model for an answer (generateContent or streamGenerateContent). */
export function isGeminiModelPath(path: string): boolean {
  const call = geminiCallOf(path);
  return call !== undefined && call.method !== "countTokens";
}

/** Which model API a request path asks for an answer, or undefined for other endpoints. */
export function modelApiOfPath(path: string): ModelApi | undefined {
  if (isMessagesPath(path)) return "anthropic-messages";
  if (isResponsesPath(path)) return "openai-responses";
  if (isGeminiModelPath(path)) return "gemini";
  return undefined;
}

/** Whether a path asks a model for an answer, in any wire format served (what replays count and recordings keep). */
export function isModelPath(path: string): boolean {
  return modelApiOfPath(path) !== undefined;
}

export function isCountTokensPath(path: string): boolean {
  const pathname = path.split("?")[0];
  return pathname === "/v1/messages/count_tokens";
}

export function jsonResponse(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): WireResponse {
  return { status, headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) };
}
