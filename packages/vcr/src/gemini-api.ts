/**
 * The slice of the Gemini API (`generateContent`, `streamGenerateContent?alt=sse`) that the gemini
 * CLI speaks, as plain types, and how a reply is put on the wire. Observed with @google/gemini-cli
 * 0.61.0: requests `{contents, systemInstruction, tools: [{functionDeclarations}], generationConfig}`;
 * answers one `GenerateContentResponse` per SSE `data:` line when streamed, one JSON object else.
 */

import { parseSse } from "./sse.js";
import type { WireResponse } from "./wire.js";

export interface GeminiFunctionCall {
  name: string;
  args: Record<string, unknown>;
  /** The call's id; the CLI echoes it back in the functionResponse (it invents a time-based one when absent). */
  id?: string;
}

export interface GeminiFunctionResponse {
  name: string;
  /** The CLI sends `{output: "..."}` (a shell command's output ends with `Exit Code: N`), or `{error: "..."}`. */
  response: Record<string, unknown>;
  id?: string;
}

/** One part of a Gemini content: text, a function call, a function response, or something else. */
export interface GeminiPart {
  text?: string;
  /** True for a thought summary (the model's thinking), not an answer. */
  thought?: boolean;
  functionCall?: GeminiFunctionCall;
  functionResponse?: GeminiFunctionResponse;
  [key: string]: unknown;
}

export interface GeminiContent {
  /** "user" or "model". */
  role?: string;
  parts: GeminiPart[];
}

/** The JSON body of `POST /v1beta/models/<model>:(stream)generateContent`. */
export interface GeminiRequest {
  contents: GeminiContent[];
  systemInstruction?: GeminiContent | string;
  tools?: Array<{
    functionDeclarations?: Array<{ name: string; [key: string]: unknown }>;
    [key: string]: unknown;
  }>;
  generationConfig?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface GeminiUsage {
  promptTokenCount: number;
  candidatesTokenCount: number;
  thoughtsTokenCount?: number;
  cachedContentTokenCount?: number;
}

/** A model answer to send back. `usage` is estimated from the request and the parts when absent. */
export interface GeminiMessageReply {
  kind: "gemini-message";
  parts: GeminiPart[];
  /** Default "STOP" (Gemini says STOP after function calls too). */
  finishReason?: "STOP" | "MAX_TOKENS" | "SAFETY" | "RECITATION" | "MALFORMED_FUNCTION_CALL" | "OTHER";
  usage?: Partial<GeminiUsage>;
  /** Stream the text parts in this many chunks (default 1), as the API streams a long answer. */
  chunks?: number;
}

/** A Gemini API error: the HTTP status and the message of the Google error body. */
export interface GeminiErrorReply {
  kind: "gemini-error";
  status: number;
  message: string;
  /** The Google status name (INVALID_ARGUMENT, ...); derived from the HTTP status when absent. */
  statusName?: string;
}

export type GeminiReply = GeminiMessageReply | GeminiErrorReply;

const STATUS_NAMES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  409: "ABORTED",
  413: "INVALID_ARGUMENT",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

/** The JSON body of a Gemini API error: `{error: {code, message, status}}`. */
export function geminiErrorBody(status: number, message: string, statusName?: string) {
  return { error: { code: status, message, status: statusName ?? STATUS_NAMES[status] ?? "UNKNOWN" } };
}

/** One `GenerateContentResponse`: a candidate with `parts`, and usage and finishReason on the last chunk. */
export function generateContentResponse(
  parts: GeminiPart[],
  model: string,
  last: { finishReason: string; usage: GeminiUsage } | undefined,
): Record<string, unknown> {
  return {
    candidates: [
      {
        content: { role: "model", parts },
        ...(last ? { finishReason: last.finishReason, index: 0 } : {}),
      },
    ],
    ...(last
      ? {
          usageMetadata: {
            ...last.usage,
            totalTokenCount:
              last.usage.promptTokenCount +
              last.usage.candidatesTokenCount +
              (last.usage.thoughtsTokenCount ?? 0),
          },
        }
      : {}),
    modelVersion: model,
  };
}

/** The chunks a reply streams as: text parts split into `chunks` pieces, the other parts whole, in order. */
export function replyChunks(
  reply: GeminiMessageReply,
  model: string,
  usage: GeminiUsage,
): Record<string, unknown>[] {
  const pieces = Math.max(1, reply.chunks ?? 1);
  const chunkParts: GeminiPart[][] = [];
  for (const part of reply.parts) {
    if (typeof part.text === "string" && pieces > 1 && part.functionCall === undefined) {
      const size = Math.ceil(part.text.length / pieces) || 1;
      for (let at = 0; at < part.text.length; at += size)
        chunkParts.push([{ ...part, text: part.text.slice(at, at + size) }]);
    } else {
      chunkParts.push([part]);
    }
  }
  if (chunkParts.length === 0) chunkParts.push([{ text: "" }]);
  const finishReason = reply.finishReason ?? "STOP";
  return chunkParts.map((parts, index) =>
    generateContentResponse(
      parts,
      model,
      index === chunkParts.length - 1 ? { finishReason, usage } : undefined,
    ),
  );
}

const SSE_HEADERS = { "content-type": "text/event-stream", "cache-control": "no-cache" };

/** The HTTP response of streamed chunks (`data: JSON\n\n` each), or of one merged JSON answer. */
export function chunksToResponse(chunks: Record<string, unknown>[], stream: boolean): WireResponse {
  if (stream) {
    return {
      status: 200,
      headers: { ...SSE_HEADERS },
      body: chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join(""),
    };
  }
  const parts = chunks.flatMap(
    (chunk) =>
      (chunk as { candidates?: Array<{ content?: { parts?: GeminiPart[] } }> }).candidates?.[0]?.content
        ?.parts ?? [],
  );
  const last = chunks[chunks.length - 1] as { candidates?: Array<Record<string, unknown>> };
  const merged = { ...last, candidates: [{ ...last.candidates?.[0], content: { role: "model", parts } }] };
  return { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(merged) };
}

/**
 * The parts of a Gemini answer (every SSE chunk's, or the JSON body's), or undefined when the
 * response is not a successful answer.
 */
export function geminiAnswerParts(response: { status: number; body: string }): GeminiPart[] | undefined {
  if (response.status !== 200) return undefined;
  const bodies: unknown[] = [];
  if (response.body.trimStart().startsWith("data:")) {
    for (const event of parseSse(response.body)) {
      try {
        bodies.push(JSON.parse(event.data));
      } catch {
        // a line that is not JSON carries no parts
      }
    }
  } else {
    try {
      bodies.push(JSON.parse(response.body));
    } catch {
      return undefined;
    }
  }
  return bodies.flatMap(
    (body) =>
      (body as { candidates?: Array<{ content?: { parts?: GeminiPart[] } }> })?.candidates?.[0]?.content
        ?.parts ?? [],
  );
}
