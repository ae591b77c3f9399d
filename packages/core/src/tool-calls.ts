import type { Run, RunEvent, ToolResultEvent } from "./run.js";

/**
 * A tool call joined with what became of it. `status`:
 * - ok: it ran and succeeded;
 * - error: it ran (or was blocked by a hook) and returned an error;
 * - denied: it was attempted and never ran: a permission denial, a PreToolUse hook's block (exit 2 or
 *   a deny decision), or the result line's `permission_denials` say so;
 * - incomplete: it started and nothing says it finished (interrupted, dropped, or the run ended).
 */
export interface ToolCallView {
  id: string;
  name: string;
  input: Record<string, unknown>;
  agent: string;
  /** Index of the tool_call event in run.events. */
  index: number;
  /** 0-based position among all tool calls of the run. */
  position: number;
  timestamp?: string;
  result?: ToolResultEvent;
  permissionRequested: boolean;
  status: "ok" | "error" | "denied" | "incomplete";
}

/** Every tool call of a run, in order, with its result and permission story. */
export function listToolCalls(run: Pick<Run, "events">, options: { agent?: string } = {}): ToolCallView[] {
  const results = new Map<string, ToolResultEvent>();
  const denied = new Set<string>();
  const requested = new Set<string>();
  for (const event of run.events) {
    if (event.type === "tool_result") results.set(event.id, event);
    else if (event.type === "permission_denied" && event.id) denied.add(event.id);
    else if (event.type === "permission_request" && event.id) requested.add(event.id);
    else if (event.type === "final_result") {
      for (const denial of event.permission_denials ?? [])
        if (denial.tool_use_id) denied.add(denial.tool_use_id);
    }
  }
  const views: ToolCallView[] = [];
  for (const event of run.events) {
    if (event.type !== "tool_call") continue;
    if (options.agent !== undefined && event.agent !== options.agent) continue;
    const result = results.get(event.id);
    // Every field in one literal (absent ones undefined): one hidden class for all the views of a
    // long run, their fields in the object itself.
    views.push({
      id: event.id,
      name: event.name,
      input: event.input,
      agent: event.agent,
      index: event.index,
      position: views.length,
      timestamp: event.timestamp || undefined,
      result,
      permissionRequested: requested.has(event.id),
      status: denied.has(event.id) ? "denied" : !result ? "incomplete" : result.is_error ? "error" : "ok",
    });
  }
  return views;
}

/** Tool names in call order (the seeds' getToolSequence). */
export function toolSequence(run: Pick<Run, "events">, options: { agent?: string } = {}): string[] {
  return listToolCalls(run, options).map((call) => call.name);
}

/** Events of one type, typed. */
export function eventsOfType<T extends RunEvent["type"]>(
  run: Pick<Run, "events">,
  type: T,
): Extract<RunEvent, { type: T }>[] {
  return run.events.filter((event): event is Extract<RunEvent, { type: T }> => event.type === type);
}

/** The run's final result event, when the run got that far. */
export function finalResult(run: Pick<Run, "events">) {
  const results = eventsOfType(run, "final_result");
  return results[results.length - 1];
}

/** The text of the agent's last assistant message (main agent unless told otherwise). */
export function finalResponse(run: Pick<Run, "events">, agent = "main"): string | undefined {
  const result = finalResult(run);
  if (agent === "main" && result?.result !== undefined) return result.result;
  const texts = eventsOfType(run, "assistant_text").filter((event) => event.agent === agent);
  return texts[texts.length - 1]?.text;
}

export type { ToolResultEvent };
