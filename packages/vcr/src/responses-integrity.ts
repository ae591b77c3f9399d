import { type Recording, recordedRequest } from "./recording.js";
import { isResponsesPath, type ResponsesInputItem } from "./responses-api.js";
import { outputItemsOf } from "./responses-sse.js";

/**
 * The Responses API side of a recording's integrity check (see integrity.ts): a recorded answer
 * that calls a tool must come back, word for word, in the `input` of the later requests of its
 * conversation (the CLI resends the whole conversation on every request).
 */

function inputOf(recording: Recording, position: number): ResponsesInputItem[] {
  const body = recordedRequest(recording, recording.interactions[position]!).body as
    | { input?: unknown }
    | undefined;
  return Array.isArray(body?.input) ? (body.input as ResponsesInputItem[]) : [];
}

/** An item without its `id` (the CLI numbers its own items anew on every run). */
function plain(item: ResponsesInputItem | undefined): string {
  return JSON.stringify(item ?? null, (key, value) => (key === "id" ? undefined : value));
}

/** The tool calls of a recorded answer. */
function toolCallsOf(recording: Recording, position: number): ResponsesInputItem[] {
  const interaction = recording.interactions[position]!;
  if (interaction.response.status !== 200 || interaction.response.body.kind !== "sse") return [];
  const events = interaction.response.body.events.map((event) => ({
    event: event.event,
    data: "data" in event ? event.data : event.data_text,
  }));
  return outputItemsOf(events).filter(
    (item) => item.type === "function_call" || item.type === "custom_tool_call",
  ) as ResponsesInputItem[];
}

function sameCall(echo: ResponsesInputItem, call: ResponsesInputItem): boolean {
  return (
    echo.type === call.type &&
    echo.call_id === call.call_id &&
    echo.name === call.name &&
    (echo.arguments ?? echo.input) === (call.arguments ?? call.input)
  );
}

/**
 * Why the answer at `position` must not be replayed (its tool calls are not what the rest of its
 * conversation shows the CLI sending back), or undefined when it is consistent or the last of its
 * conversation (the digest covers that one).
 */
export function responsesAnswerProblem(recording: Recording, position: number): string | undefined {
  const calls = toolCallsOf(recording, position);
  if (calls.length === 0) return undefined;
  const input = inputOf(recording, position);
  for (let later = position + 1; later < recording.interactions.length; later++) {
    if (!isResponsesPath(recording.interactions[later]!.request.path)) continue;
    const next = inputOf(recording, later);
    if (next.length <= input.length || plain(next[0]) !== plain(input[0])) continue;
    if (calls.every((call) => next.some((item) => sameCall(item, call)))) return undefined;
    const described = calls.map((call) => `${call.name} ${call.arguments ?? JSON.stringify(call.input)}`);
    return `the recorded answer of interaction #${recording.interactions[position]!.index} calls ${described.join(", ")}, but the later recorded requests of its conversation show the assistant sending something else (the answer was edited)`;
  }
  return undefined;
}
