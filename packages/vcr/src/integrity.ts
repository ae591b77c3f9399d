import { geminiIntegrityProblem } from "./gemini-integrity.js";
import { type RecordedInteraction, type Recording, recordedRequest, responsesDigest } from "./recording.js";
import { isResponsesPath } from "./responses-api.js";
import { responsesAnswerProblem } from "./responses-integrity.js";
import { canonicalJson } from "./stable-json.js";
import { isMessagesPath } from "./wire.js";

/**
 * What keeps a recording honest before a replay serves it (see the README's "Integrity"):
 *
 * - every recorded answer that calls a tool, and whose conversation goes on in a later recorded
 *   request, must be echoed there, word for word, as the assistant's turn: that is what the CLI sent
 *   back after running those calls when the recording was made. An answer edited by hand (a tool call's input changed to `touch PWNED`)
 *   no longer matches the request after it, and the recording is refused before anything runs;
 * - the last answer of each conversation (the final answer, a judge's verdict, a title) has no later
 *   request to check it against, and is covered by `responses_sha256`, a digest of every recorded answer written at
 *   record time: an edit that does not recompute it is refused too.
 *
 * This catches hand edits, bad merges and truncated files. It is no signature: someone who edits
 * an answer, the request after it and the digest together gets a consistent recording.
 */

interface Block {
  type: string;
  [field: string]: unknown;
}

/** The content blocks of a recorded Messages answer (from its SSE events or its JSON body). */
export function answerBlocks(interaction: RecordedInteraction): Block[] | undefined {
  if (interaction.response.status !== 200) return undefined;
  const body = interaction.response.body;
  if (body.kind === "json") {
    const content = (body.json as { content?: unknown } | null)?.content;
    return Array.isArray(content) ? (content as Block[]) : undefined;
  }
  if (body.kind !== "sse") return undefined;
  const blocks: Block[] = [];
  const partialJson = new Map<number, string>();
  for (const event of body.events) {
    if (!("data" in event)) continue;
    const data = event.data as {
      type?: string;
      index?: number;
      content_block?: Block;
      delta?: Record<string, unknown>;
    };
    const index = data.index ?? 0;
    if (data.type === "content_block_start" && data.content_block) {
      blocks[index] = { ...data.content_block };
    } else if (data.type === "content_block_delta" && data.delta && blocks[index]) {
      const block = blocks[index]!;
      const delta = data.delta;
      if (delta.type === "text_delta") block.text = `${block.text ?? ""}${delta.text ?? ""}`;
      else if (delta.type === "thinking_delta")
        block.thinking = `${block.thinking ?? ""}${delta.thinking ?? ""}`;
      else if (delta.type === "signature_delta")
        block.signature = `${block.signature ?? ""}${delta.signature ?? ""}`;
      else if (delta.type === "input_json_delta")
        partialJson.set(index, `${partialJson.get(index) ?? ""}${delta.partial_json ?? ""}`);
    }
  }
  for (const [index, json] of partialJson) {
    try {
      blocks[index]!.input = json === "" ? {} : JSON.parse(json);
    } catch {
      blocks[index]!.input = { unparsable: json };
    }
  }
  return blocks.filter(Boolean);
}

/** The blocks that decide what happens (what a tool call runs, what a text says), in order. */
function decisive(blocks: readonly Block[]): Block[] {
  return blocks.filter((block) => block.type === "tool_use" || block.type === "text");
}

/**
 * Whether the assistant turn a later request sent (`echo`) is this answer: the same texts and the
 * same tool calls, each input field as answered (the CLI adds the defaults of a tool's schema,
 * such as Edit's `replace_all: false`, so the echo may have more fields, never other values).
 */
function echoes(echo: readonly Block[], answer: readonly Block[]): boolean {
  const said = decisive(echo);
  const answered = decisive(answer);
  if (said.length !== answered.length) return false;
  return answered.every((block, position) => {
    const other = said[position]!;
    if (other.type !== block.type) return false;
    if (block.type === "text") return String(other.text ?? "").trim() === String(block.text ?? "").trim();
    if (other.id !== block.id || other.name !== block.name) return false;
    const input = (block.input ?? {}) as Record<string, unknown>;
    const echoed = (other.input ?? {}) as Record<string, unknown>;
    return Object.keys(input).every((field) => canonicalJson(input[field]) === canonicalJson(echoed[field]));
  });
}

type Message = { role?: string; content?: unknown };

function messagesOf(recording: Recording, interaction: RecordedInteraction): Message[] {
  const body = recordedRequest(recording, interaction).body as { messages?: unknown } | undefined;
  return Array.isArray(body?.messages) ? (body.messages as Message[]) : [];
}

/** A message without its cache markers (the CLI moves them from request to request). */
function plain(message: Message | undefined): string {
  return JSON.stringify(message ?? null, (key, value) => (key === "cache_control" ? undefined : value));
}

/**
 * The assistant turns of the later recorded requests that continue the conversation of `messages`
 * (they start with the same message and are longer), or undefined when none does: the answer was
 * the last of its conversation (a final answer, a judge's verdict, a title).
 */
function continuingAssistantTurns(
  recording: Recording,
  after: number,
  messages: Message[],
): Block[][] | undefined {
  const turns: Block[][] = [];
  let continued = false;
  for (const interaction of recording.interactions.slice(after + 1)) {
    const later = messagesOf(recording, interaction);
    if (later.length <= messages.length || plain(later[0]) !== plain(messages[0])) continue;
    continued = true;
    for (const message of later) {
      if (message.role !== "assistant") continue;
      const content =
        typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
      if (Array.isArray(content)) turns.push(content as Block[]);
    }
  }
  return continued ? turns : undefined;
}

/**
 * Why `recording` must not be replayed (a tool-calling answer that the rest of its conversation
 * does not echo, a digest that does not match), or undefined when it is consistent.
 */
export function recordingIntegrityProblem(recording: Recording): string | undefined {
  if (recording.responses_sha256 !== undefined && recording.responses_sha256 !== responsesDigest(recording)) {
    return "its answers were changed after it was recorded (responses_sha256 does not match them)";
  }
  for (const [position, interaction] of recording.interactions.entries()) {
    if (isResponsesPath(interaction.request.path)) {
      const problem = responsesAnswerProblem(recording, position);
      if (problem) return problem;
      continue;
    }
    if (!isMessagesPath(interaction.request.path)) continue;
    const blocks = answerBlocks(interaction);
    if (!blocks?.some((block) => block.type === "tool_use")) continue;
    const turns = continuingAssistantTurns(recording, position, messagesOf(recording, interaction));
    // The last answer of a conversation has no later request to check it against: the digest covers it.
    if (turns && !turns.some((turn) => echoes(turn, blocks))) {
      const calls = blocks
        .filter((block) => block.type === "tool_use")
        .map((block) => `${block.name} ${JSON.stringify(block.input)}`);
      return `the recorded answer of interaction #${interaction.index} calls ${calls.join(", ")}, but the later recorded requests of its conversation show the assistant sending something else (the answer was edited)`;
    }
  }
  return geminiIntegrityProblem(recording);
}
