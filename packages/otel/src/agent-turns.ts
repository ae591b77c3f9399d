import type { AssistantTextEvent, Run, RunEvent, ToolCallEvent, ToolResultEvent } from "@evals/core";

/** One model turn of one agent: what one assistant message said and called, and the results. */
export interface AgentTurn {
  agent: string;
  /** The model message id, when the source knew it. */
  messageId?: string;
  texts: AssistantTextEvent[];
  calls: ToolCallEvent[];
  /** The results of this turn's calls, by tool_use_id. */
  results: Map<string, ToolResultEvent>;
  /** Indexes (in run.events) of the turn's first and last event. */
  first: number;
  last: number;
}

/**
 * An agent's turns, in order. A turn starts with an assistant event whose message id differs from the
 * current turn's, or (without ids, as hooks give) with the first assistant event after a tool result
 * or a user message.
 */
export function agentTurns(run: Pick<Run, "events">, agent: string): AgentTurn[] {
  const turns: AgentTurn[] = [];
  const byCall = new Map<string, AgentTurn>();
  let current: AgentTurn | undefined;
  let answered = false;
  for (const event of run.events) {
    if (event.agent !== agent) continue;
    if (event.type === "assistant_text" || event.type === "tool_call") {
      const startsTurn =
        !current ||
        (event.message_id !== undefined && event.message_id !== current.messageId) ||
        (event.message_id === undefined && answered);
      if (startsTurn || !current) {
        current = {
          agent,
          ...(event.message_id !== undefined ? { messageId: event.message_id } : {}),
          texts: [],
          calls: [],
          results: new Map(),
          first: event.index,
          last: event.index,
        };
        turns.push(current);
        answered = false;
      }
      if (event.type === "assistant_text") current.texts.push(event);
      else {
        current.calls.push(event);
        byCall.set(event.id, current);
      }
      current.last = Math.max(current.last, event.index);
    } else if (event.type === "tool_result") {
      const owner = byCall.get(event.id);
      if (owner) {
        owner.results.set(event.id, event);
        owner.last = Math.max(owner.last, event.index);
      }
      answered = true;
    } else if (event.type === "user_message") answered = true;
  }
  return turns;
}

/** The events that belong to an agent's span: its own, and its start and stop in the parent. */
export function agentEvents(run: Pick<Run, "events">, agent: string): RunEvent[] {
  return run.events.filter(
    (event) =>
      event.agent === agent ||
      ((event.type === "subagent_start" || event.type === "subagent_stop") && event.agent_id === agent),
  );
}
