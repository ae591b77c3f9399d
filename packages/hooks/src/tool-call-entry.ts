import type { CapturedEvent, ToolCallEntry } from "@evals/core";
import { TOOL_CALLS_FILE } from "./paths.js";

/**
 * The tool-calls.jsonl view of a captured event. The Node hook writes it as it captures; for raw
 * lines (written by the shell hook) the readers derive it from events.jsonl. Plain Node, no zod.
 */

const PHASES: Record<string, ToolCallEntry["phase"]> = {
  PreToolUse: "pre",
  PostToolUse: "post",
  PostToolUseFailure: "post",
};

/**
 * The tool-calls.jsonl view of a Pre/Post/PostFailure event (the seeds' ToolCallEntry): undefined
 * for other events, a problem when the payload lacks what the entry needs.
 */
export function toolCallEntry(line: CapturedEvent): ToolCallEntry | string | undefined {
  const event = line.event as Record<string, unknown>;
  const name = String(event.hook_event_name);
  // Own keys only: an event named "constructor" or "toString" is no tool event.
  const phase = Object.hasOwn(PHASES, name) ? PHASES[name] : undefined;
  if (!phase) return undefined;
  const input = event.tool_input;
  if (typeof event.tool_name !== "string")
    return `${name} without a tool_name: not written to ${TOOL_CALLS_FILE}`;
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    return `${name} of ${event.tool_name} without an object tool_input: not written to ${TOOL_CALLS_FILE}`;
  }
  const entry: ToolCallEntry = {
    timestamp: line.captured_at,
    phase,
    tool_name: event.tool_name,
    tool_input: input as Record<string, unknown>,
  };
  if (typeof event.tool_use_id === "string") entry.tool_use_id = event.tool_use_id;
  if (typeof event.session_id === "string") entry.session_id = event.session_id;
  if (typeof event.cwd === "string") entry.cwd = event.cwd;
  if (typeof event.agent_id === "string") entry.agent_id = event.agent_id;
  if (name === "PostToolUse" && event.tool_response !== undefined) entry.tool_output = event.tool_response;
  if (name === "PostToolUseFailure")
    entry.error = typeof event.error === "string" ? event.error : "tool failed";
  return entry;
}
