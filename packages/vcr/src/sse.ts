/**
 * Server-Sent Events as the Messages API streams them: `event: NAME\ndata: JSON\n\n`.
 */

export interface SseEvent {
  event: string;
  /** The data line's text (JSON for the Messages API). */
  data: string;
}

/** The Messages API message object (what `message_start` carries and non-streaming calls return). */
export interface ApiMessage {
  id: string;
  type: "message";
  role: "assistant";
  model: string;
  content: Array<Record<string, unknown> & { type: string }>;
  stop_reason: string | null;
  stop_sequence: string | null;
  usage: Record<string, unknown> & { input_tokens: number; output_tokens: number };
}

/**
 * Serializes events exactly as the Messages API does. An event named "message" (SSE's default, what
 * parseSse names an event without an `event:` line, as the Gemini API sends them) gets no such line.
 */
export function encodeSse(events: SseEvent[]): string {
  let out = "";
  for (const { event, data } of events)
    out += event === "message" ? `data: ${data}\n\n` : `event: ${event}\ndata: ${data}\n\n`;
  return out;
}

/**
 * Parses an SSE body into its events. Multi-line data is joined with "\n"; comments and fields
 * other than `event`/`data` are ignored (use the raw text when exact bytes matter).
 */
export function parseSse(body: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const chunk of body.split(/\r?\n\r?\n/)) {
    if (chunk.trim() === "") continue;
    let event = "message";
    const data: string[] = [];
    for (const line of chunk.split(/\r?\n/)) {
      if (line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "event") event = value;
      else if (field === "data") data.push(value);
    }
    events.push({ event, data: data.join("\n") });
  }
  return events;
}

/** The stream of events that delivers `message`, block by block. */
export function messageToSse(message: ApiMessage): SseEvent[] {
  const event = (name: string, payload: Record<string, unknown>): SseEvent => ({
    event: name,
    data: JSON.stringify({ type: name, ...payload }),
  });
  const events: SseEvent[] = [
    event("message_start", {
      message: {
        ...message,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...message.usage, output_tokens: Math.min(1, message.usage.output_tokens) },
      },
    }),
    event("ping", {}),
  ];
  message.content.forEach((block, index) => {
    if (block.type === "text") {
      events.push(event("content_block_start", { index, content_block: { type: "text", text: "" } }));
      events.push(event("content_block_delta", { index, delta: { type: "text_delta", text: block.text } }));
    } else if (block.type === "tool_use") {
      events.push(
        event("content_block_start", {
          index,
          content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
        }),
      );
      events.push(
        event("content_block_delta", {
          index,
          delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input ?? {}) },
        }),
      );
    } else if (block.type === "thinking") {
      events.push(
        event("content_block_start", {
          index,
          content_block: { type: "thinking", thinking: "", signature: "" },
        }),
      );
      events.push(
        event("content_block_delta", { index, delta: { type: "thinking_delta", thinking: block.thinking } }),
      );
      events.push(
        event("content_block_delta", {
          index,
          delta: { type: "signature_delta", signature: block.signature },
        }),
      );
    } else {
      events.push(event("content_block_start", { index, content_block: block }));
    }
    events.push(event("content_block_stop", { index }));
  });
  events.push(
    event("message_delta", {
      delta: { stop_reason: message.stop_reason, stop_sequence: message.stop_sequence },
      usage: { output_tokens: message.usage.output_tokens },
    }),
  );
  events.push(event("message_stop", {}));
  return events;
}
