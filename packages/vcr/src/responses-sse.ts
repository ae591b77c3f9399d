import type { SseEvent } from "./sse.js";

/**
 * The Responses API's streaming events: `event: response.x\ndata: {"type":"response.x",...}\n\n`,
 * as the Codex CLI reads them (response.created, output items added/done with their deltas,
 * response.completed with the usage).
 */

/** An output item as the API sends it (ids and status filled in). */
export type ApiOutputItem = Record<string, unknown> & { type: string; id: string };

/** The Responses API response object (what response.created and response.completed carry). */
export interface ApiResponse {
  id: string;
  object: "response";
  created_at: number;
  status: "completed";
  model: string;
  output: ApiOutputItem[];
  usage: {
    input_tokens: number;
    input_tokens_details: { cached_tokens: number };
    output_tokens: number;
    output_tokens_details: { reasoning_tokens: number };
    total_tokens: number;
  };
}

/** The stream of events that delivers `response`, item by item. */
export function responseToSse(response: ApiResponse): SseEvent[] {
  let sequence = 0;
  const event = (name: string, payload: Record<string, unknown>): SseEvent => ({
    event: name,
    data: JSON.stringify({ type: name, sequence_number: sequence++, ...payload }),
  });
  const pending = { ...response, status: "in_progress", output: [], usage: null };
  const events: SseEvent[] = [
    event("response.created", { response: pending }),
    event("response.in_progress", { response: pending }),
  ];
  response.output.forEach((item, output_index) => {
    const item_id = item.id;
    if (item.type === "message") {
      const text = String((item.content as Array<{ text: string }>)[0]?.text ?? "");
      events.push(
        event("response.output_item.added", {
          output_index,
          item: { ...item, status: "in_progress", content: [] },
        }),
      );
      const part = { type: "output_text", text: "", annotations: [] };
      events.push(event("response.content_part.added", { item_id, output_index, content_index: 0, part }));
      events.push(
        event("response.output_text.delta", { item_id, output_index, content_index: 0, delta: text }),
      );
      events.push(event("response.output_text.done", { item_id, output_index, content_index: 0, text }));
      events.push(
        event("response.content_part.done", {
          item_id,
          output_index,
          content_index: 0,
          part: { ...part, text },
        }),
      );
    } else if (item.type === "function_call") {
      events.push(
        event("response.output_item.added", {
          output_index,
          item: { ...item, status: "in_progress", arguments: "" },
        }),
      );
      const delta = String(item.arguments);
      events.push(event("response.function_call_arguments.delta", { item_id, output_index, delta }));
      events.push(
        event("response.function_call_arguments.done", { item_id, output_index, arguments: delta }),
      );
    } else if (item.type === "custom_tool_call") {
      events.push(event("response.output_item.added", { output_index, item: { ...item, input: "" } }));
      const delta = String(item.input);
      events.push(event("response.custom_tool_call_input.delta", { item_id, output_index, delta }));
      events.push(event("response.custom_tool_call_input.done", { item_id, output_index, input: delta }));
    } else {
      events.push(event("response.output_item.added", { output_index, item }));
    }
    events.push(event("response.output_item.done", { output_index, item }));
  });
  events.push(event("response.completed", { response }));
  return events;
}

/**
 * The output items of a streamed response (from its `response.output_item.done` events), or
 * undefined when the stream has none (an error, another API).
 */
export function outputItemsOf(events: ReadonlyArray<{ event: string; data?: unknown }>): ApiOutputItem[] {
  const items: ApiOutputItem[] = [];
  for (const event of events) {
    const data = (typeof event.data === "string" ? safeParse(event.data) : event.data) as {
      type?: string;
      item?: ApiOutputItem;
    } | null;
    if (data?.type === "response.output_item.done" && data.item) items.push(data.item);
  }
  return items;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
