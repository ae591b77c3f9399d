import {
  isResponsesPath,
  type ResponsesCustomToolCallItem,
  type ResponsesErrorReply,
  type ResponsesFunctionCallItem,
  type ResponsesInputItem,
  type ResponsesModelReply,
  type ResponsesOutputItem,
  type ResponsesReply,
  type ResponsesRequest,
  type ResponsesTextItem,
  responsesErrorBody,
} from "./responses-api.js";
import { type ApiOutputItem, type ApiResponse, responseToSse } from "./responses-sse.js";
import { describeThrown, estimateTokens, type ScriptContext } from "./scripted-source.js";
import { encodeSse } from "./sse.js";
import { jsonResponse, type ModelSource, type SourceContext, type SourceResponse } from "./wire.js";

/**
 * A scripted model speaking the OpenAI Responses API (for the Codex CLI), and the builders and
 * readers its script uses: the Responses counterpart of `scripted(...)` and its helpers.
 */

export type ResponsesScriptFunction = (
  request: ResponsesRequest,
  context: ScriptContext,
) => ResponsesModelReply | Promise<ResponsesModelReply>;

/* Builders. */

/** An assistant message with `value` as its text. */
export function outputText(value: string): ResponsesTextItem {
  return { type: "message", text: value };
}

/** A function call (`functionCall("exec_command", { cmd: "ls" })`); the server gives it a call id. */
export function functionCall(
  name: string,
  args: Record<string, unknown>,
  callId?: string,
): ResponsesFunctionCallItem {
  return { type: "function_call", name, arguments: args, ...(callId ? { call_id: callId } : {}) };
}

/** Codex's shell tool: `exec_command {cmd}` (more fields such as `workdir` in `extra`). */
export function execCommand(cmd: string, extra: Record<string, unknown> = {}): ResponsesFunctionCallItem {
  return functionCall("exec_command", { cmd, ...extra });
}

/** A call of a freeform (custom) tool with its raw input. */
export function customToolCall(name: string, input: string, callId?: string): ResponsesCustomToolCallItem {
  return { type: "custom_tool_call", name, input, ...(callId ? { call_id: callId } : {}) };
}

/** Codex's `apply_patch` with the given file operations (see addFile, updateFile, deleteFile). */
export function applyPatch(...operations: string[]): ResponsesCustomToolCallItem {
  return customToolCall("apply_patch", ["*** Begin Patch", ...operations, "*** End Patch"].join("\n"));
}

/** A patch operation that creates `path` with `content`. */
export function addFile(path: string, content: string): string {
  const lines = content.endsWith("\n") ? content.slice(0, -1).split("\n") : content.split("\n");
  return [`*** Add File: ${path}`, ...lines.map((line) => `+${line}`)].join("\n");
}

/** A patch operation that replaces the lines `oldText` by `newText` in `path`. */
export function updateFile(path: string, oldText: string, newText: string): string {
  const lines = (text: string) => (text === "" ? [] : text.replace(/\n$/, "").split("\n"));
  return [
    `*** Update File: ${path}`,
    "@@",
    ...lines(oldText).map((line) => `-${line}`),
    ...lines(newText).map((line) => `+${line}`),
  ].join("\n");
}

/** A patch operation that deletes `path`. */
export function deleteFile(path: string): string {
  return `*** Delete File: ${path}`;
}

/** A model response made of `items` (plain strings are assistant messages). */
export function response(...items: Array<ResponsesOutputItem | string>): ResponsesReply {
  return {
    kind: "response",
    output: items.map((item) => (typeof item === "string" ? outputText(item) : item)),
  };
}

/** An API error reply: the HTTP status and the message of the OpenAI error body. */
export function responsesError(status: number, message: string, errorType?: string): ResponsesErrorReply {
  return { kind: "error", status, message, ...(errorType ? { error_type: errorType } : {}) };
}

/* Readers. */

/** A tool output the CLI sent back: which call it answers, and its text. */
export interface ToolOutput {
  call_id: string;
  /** The tool the call named (from the call item in the same input), when it is there. */
  name?: string;
  /** `function_call_output` or `custom_tool_call_output`. */
  type: string;
  text: string;
}

function outputTextOf(output: unknown): string {
  if (typeof output === "string") return output;
  if (Array.isArray(output)) return output.map((part) => (part as { text?: string }).text ?? "").join("\n");
  if (output && typeof output === "object" && "content" in output)
    return outputTextOf((output as { content: unknown }).content);
  return JSON.stringify(output ?? "");
}

/** Every tool output the request carries, in order. */
export function toolOutputs(request: ResponsesRequest): ToolOutput[] {
  const names = new Map<string, string>();
  const outputs: ToolOutput[] = [];
  for (const item of request.input ?? []) {
    if ((item.type === "function_call" || item.type === "custom_tool_call") && item.call_id && item.name)
      names.set(item.call_id, item.name);
    if ((item.type === "function_call_output" || item.type === "custom_tool_call_output") && item.call_id) {
      const name = names.get(item.call_id);
      outputs.push({
        call_id: item.call_id,
        type: item.type,
        text: outputTextOf(item.output),
        ...(name ? { name } : {}),
      });
    }
  }
  return outputs;
}

/** The last tool output of the conversation, or undefined when there is none. */
export function lastToolOutput(request: ResponsesRequest): ToolOutput | undefined {
  return toolOutputs(request).at(-1);
}

function messageText(item: ResponsesInputItem): string {
  const { content } = item;
  if (typeof content === "string") return content;
  return (content ?? []).map((part) => part.text ?? "").join("\n");
}

/** Context blocks the CLI puts in user messages (`<environment_context>`, AGENTS.md instructions). */
const CONTEXT_BLOCK = /^\s*<(environment_context|user_instructions|permissions instructions)>/;

/** The text of the last user message that is not context the CLI added: the prompt of the turn. */
export function userPrompt(request: ResponsesRequest): string {
  const input = request.input ?? [];
  for (let index = input.length - 1; index >= 0; index--) {
    const item = input[index]!;
    if (item.role !== "user" || (item.type !== undefined && item.type !== "message")) continue;
    const text = messageText(item);
    if (text !== "" && !CONTEXT_BLOCK.test(text)) return text;
  }
  return "";
}

/** Whether the request offers the model a tool of that name. */
export function offersTool(request: ResponsesRequest, name: string): boolean {
  return (request.tools ?? []).some((tool) => tool.name === name);
}

/* The source. */

const SSE_HEADERS = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" };

/** The API response for a reply: ids filled in, usage estimated where the script gave none. */
function toApiResponse(
  reply: ResponsesReply,
  request: ResponsesRequest,
  requestText: string,
  context: Pick<SourceContext, "nextToolUseId" | "nextMessageId">,
): ApiResponse {
  const responseId = reply.id ?? context.nextMessageId().replace("msg_", "resp_");
  const output = reply.output.map((item, position): ApiOutputItem => {
    const id = `${responseId}_item_${position}`;
    if (item.type === "message") {
      return {
        type: "message",
        id,
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text: item.text, annotations: [] }],
      };
    }
    if (item.type === "reasoning") {
      return { type: "reasoning", id, summary: [{ type: "summary_text", text: item.summary }] };
    }
    const call_id = item.call_id ?? context.nextToolUseId().replace("toolu_", "call_");
    if (item.type === "function_call") {
      return {
        type: "function_call",
        id,
        status: "completed",
        call_id,
        name: item.name,
        arguments: JSON.stringify(item.arguments),
      };
    }
    return { type: "custom_tool_call", id, status: "completed", call_id, name: item.name, input: item.input };
  });
  const input_tokens = reply.usage?.input_tokens ?? estimateTokens(requestText);
  const output_tokens = reply.usage?.output_tokens ?? estimateTokens(JSON.stringify(output));
  return {
    id: responseId,
    object: "response",
    created_at: 0,
    status: "completed",
    model: reply.model ?? request.model ?? "gpt-vcr",
    output,
    usage: {
      input_tokens,
      input_tokens_details: { cached_tokens: reply.usage?.cached_input_tokens ?? 0 },
      output_tokens,
      output_tokens_details: { reasoning_tokens: reply.usage?.reasoning_output_tokens ?? 0 },
      total_tokens: input_tokens + output_tokens,
    },
  };
}

/**
 * A Responses API model that is a function of the request: `POST /v1/responses` calls go to `fn`
 * (answered as an SSE stream), other endpoints get a 404 error. Point Codex's
 * `model_providers.<name>.base_url` at `<server.url>/v1`.
 */
export function scriptedResponses(fn: ResponsesScriptFunction): ModelSource {
  let calls = 0;
  return {
    name: "scripted",
    async respond(request, context): Promise<SourceResponse> {
      if (!isResponsesPath(request.path) || request.method !== "POST") {
        return jsonResponse(
          404,
          responsesErrorBody(404, `The scripted model does not serve ${request.method} ${request.path}`),
        );
      }
      const body = request.body as unknown as ResponsesRequest | undefined;
      if (!body || !Array.isArray(body.input)) {
        return jsonResponse(
          400,
          responsesErrorBody(400, "input: the request body is not a Responses API request"),
        );
      }
      const call = calls++;
      let reply: ResponsesModelReply;
      try {
        reply = await fn(body, {
          call,
          index: context.index,
          path: request.path,
          headers: request.headers,
          interactions: context.interactions,
          signal: context.signal ?? new AbortController().signal,
        });
      } catch (error) {
        const message = `the scripted model threw on call ${call}: ${describeThrown(error)}`;
        // A 400: the CLI does not retry it, and the run is over.
        return { ...jsonResponse(400, responsesErrorBody(400, message)), error: message };
      }
      if (!reply || (reply.kind !== "response" && reply.kind !== "error")) {
        const message = `the scripted model returned ${JSON.stringify(reply)} on call ${call}; return response(...) or responsesError(...)`;
        return { ...jsonResponse(400, responsesErrorBody(400, message)), error: message };
      }
      if (reply.kind === "error") {
        return jsonResponse(reply.status, responsesErrorBody(reply.status, reply.message, reply.error_type), {
          "x-request-id": context.nextMessageId().replace("msg_", "req_"),
        });
      }
      const requestText = request.raw_body ?? JSON.stringify(body);
      const api = toApiResponse(reply, body, requestText, context);
      return { status: 200, headers: { ...SSE_HEADERS }, body: encodeSse(responseToSse(api)) };
    },
  };
}
