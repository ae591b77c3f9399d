import type {
  MessagesRequest,
  ModelErrorReply,
  ModelMessageReply,
  ReplyContentBlock,
  RequestContentBlock,
  TextBlock,
  ThinkingBlock,
  ToolResultBlock,
  ToolUseBlock,
} from "./messages-api.js";

/**
 * Builders for scripted replies, and readers of requests, for `scripted(...)` model functions.
 */

/** A text content block. */
export function text(value: string): TextBlock {
  return { type: "text", text: value };
}

/**
 * A tool_use content block. Without an `id`, the server gives it one that is unique within the
 * server (`toolu_vcr_0001`, ...), so scripts never have to invent ids.
 */
export function toolUse(name: string, input: Record<string, unknown>, id?: string): ToolUseBlock {
  return id === undefined ? { type: "tool_use", id: "", name, input } : { type: "tool_use", id, name, input };
}

/** A thinking block (the CLI shows it in the stream; the signature is opaque). */
export function thinking(value: string, signature = "vcr-signature"): ThinkingBlock {
  return { type: "thinking", thinking: value, signature };
}

/**
 * A model message made of `blocks`: `stop_reason` is "tool_use" when a tool_use block is present,
 * else "end_turn".
 */
export function reply(...blocks: Array<ReplyContentBlock | string>): ModelMessageReply {
  const content = blocks.map((block) => (typeof block === "string" ? text(block) : block));
  const hasToolUse = content.some((block) => block.type === "tool_use");
  return { kind: "message", content, stop_reason: hasToolUse ? "tool_use" : "end_turn" };
}

/** An API error reply: the HTTP status and the message of the Anthropic error body. */
export function apiError(status: number, message: string, errorType?: string): ModelErrorReply {
  return { kind: "error", status, message, ...(errorType ? { error_type: errorType } : {}) };
}

/**
 * A model that never answers: waits until the server closes, then gives up with an HTTP 503 that no
 * one reads. For testing what a run does when the model hangs (its timeout): `scripted((request,
 * context) => stall(context))`.
 */
export async function stall(context: { signal: AbortSignal }): Promise<ModelErrorReply> {
  if (!context.signal.aborted) {
    await new Promise<void>((resolve) =>
      context.signal.addEventListener("abort", () => resolve(), { once: true }),
    );
  }
  return apiError(503, "the model stalled and the server closed before it answered");
}

function blocksOf(content: string | RequestContentBlock[]): RequestContentBlock[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : content;
}

/** Every tool_result block the request carries, in order. */
export function toolResults(request: MessagesRequest): ToolResultBlock[] {
  const results: ToolResultBlock[] = [];
  for (const message of request.messages ?? []) {
    if (message.role !== "user") continue;
    for (const block of blocksOf(message.content)) {
      if (block.type === "tool_result") results.push(block as ToolResultBlock);
    }
  }
  return results;
}

/** How many tool results the conversation holds: the natural "step" counter of a script. */
export function countToolResults(request: MessagesRequest): number {
  return toolResults(request).length;
}

/** The text of a tool result's content (string, or its text blocks joined). */
export function toolResultText(result: ToolResultBlock): string {
  const { content } = result;
  if (content === undefined) return "";
  if (typeof content === "string") return content;
  return content
    .filter((part) => part.type === "text" && typeof part.text === "string")
    .map((part) => part.text)
    .join("\n");
}

/** The last tool result of the conversation, with its text, or undefined when there is none. */
export function lastToolResult(
  request: MessagesRequest,
): (ToolResultBlock & { text: string; is_error: boolean }) | undefined {
  const results = toolResults(request);
  const last = results[results.length - 1];
  if (!last) return undefined;
  return { ...last, text: toolResultText(last), is_error: last.is_error === true };
}

/** Every tool_use block the assistant sent in the conversation so far, in order. */
export function toolUses(request: MessagesRequest): ToolUseBlock[] {
  const uses: ToolUseBlock[] = [];
  for (const message of request.messages ?? []) {
    if (message.role !== "assistant") continue;
    for (const block of blocksOf(message.content)) {
      if (block.type === "tool_use") uses.push(block as ToolUseBlock);
    }
  }
  return uses;
}

const SYSTEM_REMINDER = /^\s*<system-reminder>[\s\S]*<\/system-reminder>\s*$/;

/** The text blocks of a user message that are not `<system-reminder>` context the CLI injects. */
function userTexts(content: string | RequestContentBlock[]): string[] {
  return blocksOf(content)
    .filter((block): block is TextBlock => block.type === "text" && typeof block.text === "string")
    .map((block) => block.text)
    .filter((value) => !SYSTEM_REMINDER.test(value));
}

/**
 * The text of the first user message (ignoring the `<system-reminder>` blocks the CLI adds): the
 * prompt of the main agent, or the task given to a subagent in a subagent's request.
 */
export function firstUserText(request: MessagesRequest): string {
  for (const message of request.messages ?? []) {
    if (message.role !== "user") continue;
    const texts = userTexts(message.content);
    if (texts.length > 0) return texts.join("\n");
  }
  return "";
}

/** The text of the last user message that has text (not a tool result). */
export function lastUserText(request: MessagesRequest): string {
  const messages = request.messages ?? [];
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role !== "user") continue;
    const texts = userTexts(message.content);
    if (texts.length > 0) return texts.join("\n");
  }
  return "";
}

/** The system prompt as one string. */
export function systemText(request: MessagesRequest): string {
  const { system } = request;
  if (system === undefined) return "";
  if (typeof system === "string") return system;
  return system.map((block) => block.text).join("\n");
}

/**
 * Whether the request comes from a subagent (Claude Code 2.1.330 marks a subagent's requests with
 * `cc_is_subagent=true` in the billing line of the system prompt, and an `x-claude-code-agent-id`
 * header; pass the script context's headers to check both).
 */
export function isSubagentRequest(request: MessagesRequest, headers?: Record<string, string>): boolean {
  if (headers?.["x-claude-code-agent-id"]) return true;
  const system = request.system;
  const first = typeof system === "string" ? system : system?.[0]?.text;
  return typeof first === "string" && /cc_is_subagent=true/.test(first.split("\n")[0] ?? "");
}

/** Whether the request offers the model a tool of that name. */
export function hasTool(request: MessagesRequest, name: string): boolean {
  return (request.tools ?? []).some((tool) => tool.name === name);
}
