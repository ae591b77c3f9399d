import { errorBody, type MessagesRequest, type ModelMessageReply, type ModelReply } from "./messages-api.js";
import { type ApiMessage, encodeSse, messageToSse } from "./sse.js";
import {
  type Interaction,
  isCountTokensPath,
  isMessagesPath,
  jsonResponse,
  type ModelSource,
  type SourceContext,
  type SourceResponse,
  type WireRequest,
} from "./wire.js";

/** What a script is told about the request besides its body. */
export interface ScriptContext {
  /** How many `/v1/messages` calls this server answered before this one (0 for the first). */
  call: number;
  /** The interaction index this request will have in `server.interactions`. */
  index: number;
  path: string;
  headers: Record<string, string>;
  /** The interactions before this one (all endpoints). */
  interactions: readonly Interaction[];
  /** Aborts when the server closes (see `stall`). */
  signal: AbortSignal;
}

export type ScriptFunction = (
  request: MessagesRequest,
  context: ScriptContext,
) => ModelReply | Promise<ModelReply>;

/** Rough token count of a text (4 characters a token), at least 1. */
export function estimateTokens(value: string): number {
  return Math.max(1, Math.ceil(value.length / 4));
}

const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache",
};

/** The API message for a reply: ids filled in, usage estimated where the script gave none. */
export function toApiMessage(
  reply: ModelMessageReply,
  request: MessagesRequest,
  requestText: string,
  context: Pick<SourceContext, "nextToolUseId" | "nextMessageId">,
): ApiMessage {
  const content = reply.content.map((block) =>
    block.type === "tool_use" && !block.id ? { ...block, id: context.nextToolUseId() } : { ...block },
  );
  const usage = {
    input_tokens: reply.usage?.input_tokens ?? estimateTokens(requestText),
    output_tokens: reply.usage?.output_tokens ?? estimateTokens(JSON.stringify(content)),
    cache_creation_input_tokens: reply.usage?.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: reply.usage?.cache_read_input_tokens ?? 0,
  };
  return {
    id: reply.id ?? context.nextMessageId(),
    type: "message",
    role: "assistant",
    model: reply.model ?? request.model ?? "claude-vcr",
    content,
    stop_reason: reply.stop_reason,
    stop_sequence: null,
    usage,
  };
}

/** The HTTP response for a reply: SSE when the request asked to stream, else the JSON message. */
export function replyToResponse(
  reply: ModelReply,
  request: MessagesRequest,
  requestText: string,
  context: Pick<SourceContext, "nextToolUseId" | "nextMessageId">,
): SourceResponse {
  if (reply.kind === "error") {
    return jsonResponse(reply.status, errorBody(reply.status, reply.message, reply.error_type), {
      "request-id": context.nextMessageId().replace("msg_", "req_"),
    });
  }
  const message = toApiMessage(reply, request, requestText, context);
  if (request.stream === true) {
    return { status: 200, headers: { ...SSE_HEADERS }, body: encodeSse(messageToSse(message)) };
  }
  return jsonResponse(200, message);
}

/**
 * What a script threw, with the stack frames of the user's code (file:line:column), not those of
 * this package or of Node itself, so the message points at the line that threw.
 */
export function describeThrown(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const frames = (error.stack ?? "")
    .split("\n")
    .filter((line) => /^\s+at /.test(line))
    .filter(
      (line) =>
        !/node:internal|\(node:|[\\/]@evals[\\/]vcr[\\/]|[\\/]packages[\\/]vcr[\\/]dist[\\/]/.test(line),
    )
    .map((line) => `    ${line.trim()}`);
  return [`${error.name}: ${error.message}`, ...frames.slice(0, 8)].join("\n");
}

/**
 * A model that is a function of the request: for tests, and for users who want to script a model.
 * `/v1/messages` calls go to `fn`; `count_tokens` gets an estimate; other endpoints a 404 error.
 */
export function scripted(fn: ScriptFunction): ModelSource {
  let calls = 0;
  return {
    name: "scripted",
    async respond(request: WireRequest, context: SourceContext): Promise<SourceResponse> {
      const requestText = request.raw_body ?? JSON.stringify(request.body ?? "");
      if (isCountTokensPath(request.path)) {
        return jsonResponse(200, { input_tokens: estimateTokens(requestText) });
      }
      if (!isMessagesPath(request.path) || request.method !== "POST") {
        if (request.path.startsWith("/api/hello")) return jsonResponse(200, {});
        return jsonResponse(
          404,
          errorBody(404, `The scripted model does not serve ${request.method} ${request.path}`),
        );
      }
      if (!request.body || !Array.isArray(request.body.messages)) {
        return jsonResponse(400, errorBody(400, "messages: the request body is not a Messages API request"));
      }
      const call = calls++;
      let reply: ModelReply;
      try {
        reply = await fn(request.body, {
          call,
          index: context.index,
          path: request.path,
          headers: request.headers,
          interactions: context.interactions,
          signal: context.signal ?? new AbortController().signal,
        });
      } catch (error) {
        const message = `the scripted model threw on call ${call}: ${describeThrown(error)}`;
        // Not retried: the script throws the same again, and the run is over.
        return {
          ...jsonResponse(500, errorBody(500, message), { "x-should-retry": "false" }),
          error: message,
        };
      }
      if (!reply || (reply.kind !== "message" && reply.kind !== "error")) {
        const message = `the scripted model returned ${JSON.stringify(reply)} on call ${call}; return reply(...) or apiError(...)`;
        return { ...jsonResponse(500, errorBody(500, message)), error: message };
      }
      return replyToResponse(reply, request.body, requestText, context);
    },
  };
}
