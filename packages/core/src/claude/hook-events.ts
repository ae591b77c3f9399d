import type { HookInput } from "../hook-input.js";
import { MAIN_AGENT, type Run } from "../run.js";
import { RunBuilder } from "../run-builder.js";
import { inferPermissionDenials } from "./infer-denials.js";
import { pushUserMessage, userMessage } from "./stream-json.js";
import { isDelegationTool } from "./vocabulary.js";

export interface HookEventsOptions {
  runId?: string;
  /** Capture times, parallel to the events, when known (from captured-event lines). */
  timestamps?: (string | undefined)[];
  /**
   * Mark calls that hooks show never ran (asked for permission and the agent went on; answered in a
   * PostToolBatch without a PostToolUse) as denied: see `inferPermissionDenials`. Default true.
   */
  inferDenials?: boolean;
}

/**
 * Translates captured hook inputs (in capture order) into a Run. PostToolBatch is ignored so tool
 * calls are never counted twice; MessageDisplay deltas of one message become one assistant_text.
 * What hooks cannot tell (the tool_use_id of a PermissionRequest, which call started a subagent) is
 * inferred from the pending calls and noted. The final text comes from Stop's
 * `last_assistant_message` when no MessageDisplay event already gave it.
 */
export function runFromHookEvents(events: Iterable<HookInput>, options: HookEventsOptions = {}): Run {
  const inputs = [...events];
  const run = buildFromHookEvents(inputs, options);
  return options.inferDenials === false ? run : inferPermissionDenials(run, inputs);
}

function buildFromHookEvents(events: readonly HookInput[], options: HookEventsOptions): Run {
  const builder = new RunBuilder(["hooks"]);
  if (options.runId) builder.meta.id = options.runId;
  const pending: { id: string; name: string; agent: string; input: Record<string, unknown> }[] = [];
  /** Open assistant_text events by message id: later deltas of the message are appended. */
  const textByMessage = new Map<string, { text: string; agent: string }>();
  let missingIds = 0;
  let position = -1;

  for (const event of events) {
    position++;
    const at = options.timestamps?.[position];
    const timestamp = at ? { timestamp: at } : {};
    const record = event as Record<string, unknown>;
    const agent = typeof record.agent_id === "string" ? record.agent_id : MAIN_AGENT;
    builder.meta.session_id ??= typeof event.session_id === "string" ? event.session_id : undefined;
    builder.meta.cwd ??= typeof event.cwd === "string" ? event.cwd : undefined;
    if (agent !== MAIN_AGENT && !builder.hasAgent(agent)) {
      builder.agent({ id: agent, type: String(record.agent_type ?? "subagent"), parent: MAIN_AGENT });
    }

    switch (event.hook_event_name) {
      case "UserPromptSubmit":
        pushUserMessage(builder, userMessage(String(record.prompt ?? ""), agent), timestamp);
        break;
      case "PreToolUse": {
        let id = typeof record.tool_use_id === "string" ? record.tool_use_id : undefined;
        if (!id) {
          id = `missing:${++missingIds}`;
          builder.note({ kind: "other", message: `PreToolUse of ${record.tool_name} had no tool_use_id` });
        }
        const input = (record.tool_input ?? {}) as Record<string, unknown>;
        pending.push({ id, name: String(record.tool_name), agent, input });
        builder.push({ type: "tool_call", agent, id, name: String(record.tool_name), input, ...timestamp });
        break;
      }
      case "PostToolUse":
      case "PostToolUseFailure": {
        const failed = event.hook_event_name === "PostToolUseFailure";
        const id = resolveCallId(record, agent, pending, builder);
        const index = pending.findIndex((call) => call.id === id);
        if (index >= 0) pending.splice(index, 1);
        builder.push({
          type: "tool_result",
          agent,
          id,
          output: failed ? record.error : record.tool_response,
          is_error: failed,
          ...(failed ? { error: String(record.error ?? "tool failed") } : {}),
          ...(typeof record.duration_ms === "number" ? { duration_ms: record.duration_ms } : {}),
          ...timestamp,
        });
        break;
      }
      case "PermissionRequest": {
        const id = resolveCallId(record, agent, pending, builder);
        builder.push({
          type: "permission_request",
          agent,
          ...(id.startsWith("missing:") ? {} : { id }),
          tool_name: String(record.tool_name),
          input: (record.tool_input ?? {}) as Record<string, unknown>,
          ...timestamp,
        });
        break;
      }
      case "SubagentStart": {
        const agentId = String(record.agent_id);
        // The Agent/Task call still waiting for its result is the one that started this subagent.
        const parentCall = [...pending].reverse().find((call) => isDelegationTool(call.name));
        const parentAgent = parentCall?.agent ?? MAIN_AGENT;
        builder.agent({
          id: agentId,
          type: String(record.agent_type ?? "subagent"),
          parent: parentAgent,
          ...(parentCall ? { parent_tool_use_id: parentCall.id } : {}),
        });
        const prompt = parentCall?.input.prompt;
        builder.push({
          type: "subagent_start",
          agent: parentAgent,
          agent_id: agentId,
          ...(typeof record.agent_type === "string" ? { agent_type: record.agent_type } : {}),
          ...(parentCall ? { parent_tool_use_id: parentCall.id } : {}),
          ...(typeof prompt === "string" ? { prompt } : {}),
          ...timestamp,
        });
        break;
      }
      case "SubagentStop":
        builder.push({
          type: "subagent_stop",
          agent,
          agent_id: String(record.agent_id),
          ...(typeof record.agent_type === "string" ? { agent_type: record.agent_type } : {}),
          ...(typeof record.last_assistant_message === "string"
            ? { last_message: record.last_assistant_message }
            : {}),
          ...timestamp,
        });
        break;
      case "InstructionsLoaded": {
        // Claude Code loaded an instruction file (CLAUDE.md, ...) into the context itself.
        if (typeof record.file_path !== "string") break;
        builder.meta.instructions = [
          ...(builder.meta.instructions ?? []),
          {
            file_path: record.file_path,
            ...(typeof record.memory_type === "string" ? { memory_type: record.memory_type } : {}),
            ...(typeof record.load_reason === "string" ? { load_reason: record.load_reason } : {}),
          },
        ];
        break;
      }
      case "Stop": {
        // The agent's last message: the run's final text when MessageDisplay did not show it.
        const text = record.last_assistant_message;
        if (typeof text !== "string" || text.trim() === "") break;
        let lastText: string | undefined;
        for (const open of textByMessage.values()) if (open.agent === agent) lastText = open.text;
        if (lastText?.trim() === text.trim()) break;
        const stopText = {
          type: "assistant_text" as const,
          agent,
          message_id: `stop:${position}`,
          text,
          ...timestamp,
        };
        textByMessage.set(stopText.message_id, stopText);
        builder.push(stopText);
        break;
      }
      case "MessageDisplay": {
        const messageId = typeof record.message_id === "string" ? record.message_id : `display:${position}`;
        const delta = typeof record.delta === "string" ? record.delta : "";
        const open = textByMessage.get(messageId);
        if (open) {
          open.text += delta;
          break;
        }
        const text = {
          type: "assistant_text" as const,
          agent,
          message_id: messageId,
          text: delta,
          ...timestamp,
        };
        textByMessage.set(messageId, text);
        builder.push(text);
        break;
      }
      default:
        break;
    }
  }
  return builder.build();
}

/** The tool_use_id of a post/permission event, back-filled from the pending calls when absent. */
function resolveCallId(
  record: Record<string, unknown>,
  agent: string,
  pending: { id: string; name: string; agent: string; input: Record<string, unknown> }[],
  builder: RunBuilder,
): string {
  if (typeof record.tool_use_id === "string") return record.tool_use_id;
  const inputJson = JSON.stringify(record.tool_input ?? {});
  const match =
    pending.find(
      (call) =>
        call.agent === agent && call.name === record.tool_name && JSON.stringify(call.input) === inputJson,
    ) ?? pending.find((call) => call.agent === agent && call.name === record.tool_name);
  if (!match) return `missing:${record.hook_event_name}:${record.tool_name}`;
  if (record.hook_event_name !== "PermissionRequest") {
    builder.note({
      kind: "id_backfilled",
      message: `${record.hook_event_name} of ${record.tool_name} had no tool_use_id; matched to ${match.id}`,
      tool_use_id: match.id,
    });
  }
  return match.id;
}
