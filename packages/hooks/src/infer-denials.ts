import { type HookInput, MAIN_AGENT, type Run, type RunEvent, type RunEventInput } from "@evals/core";

/**
 * Hooks never say that a permission was denied: the call gets a PreToolUse and a
 * PermissionRequest, and then nothing. When, after such a request, the same agent went on (a new
 * tool call, more text, or it stopped), the call was denied; this adds the `permission_denied`
 * event right after the request (so listToolCalls says `denied`) and a note saying it was
 * inferred. A call whose agent never went on stays `incomplete`.
 *
 * `inputs` are the hook inputs the run was built from, in the same order.
 */
export function inferPermissionDenials(run: Run, inputs: readonly HookInput[]): Run {
  const results = new Set(
    run.events.filter((event) => event.type === "tool_result").map((event) => event.id),
  );
  const alreadyDenied = new Set(
    run.events.filter((event) => event.type === "permission_denied").map((event) => event.id),
  );
  // runFromHookEvents emits one permission_request per PermissionRequest input, in order.
  const requestPositions: number[] = [];
  inputs.forEach((input, position) => {
    if (input.hook_event_name === "PermissionRequest") requestPositions.push(position);
  });

  const denials = new Map<number, RunEventInput>();
  const notes: Run["notes"] = [];
  let requestNumber = -1;
  for (const event of run.events) {
    if (event.type !== "permission_request") continue;
    requestNumber++;
    const position = requestPositions[requestNumber];
    if (!event.id || results.has(event.id) || alreadyDenied.has(event.id) || position === undefined) continue;
    if (!agentWentOn(inputs, position, event.agent)) continue;
    denials.set(event.index, {
      type: "permission_denied",
      agent: event.agent,
      id: event.id,
      tool_name: event.tool_name,
      message: "inferred from hooks: asked for permission, never ran, and the agent went on",
      ...(event.timestamp ? { timestamp: event.timestamp } : {}),
      sources: ["hooks"],
    });
    notes.push({
      kind: "other",
      message: `${event.tool_name} ${event.id} (agent ${event.agent}) asked for permission and never ran: inferred denied`,
      tool_use_id: event.id,
    });
  }
  if (denials.size === 0) return run;

  const events: RunEvent[] = [];
  const newIndex = new Map<number, number>();
  for (const event of run.events) {
    newIndex.set(event.index, events.length);
    events.push({ ...event, index: events.length });
    const denial = denials.get(event.index);
    if (denial) events.push({ ...denial, index: events.length } as RunEvent);
  }
  const remapped = run.notes.map((note) =>
    note.event_index === undefined
      ? note
      : { ...note, event_index: newIndex.get(note.event_index) ?? note.event_index },
  );
  return { ...run, events, notes: [...remapped, ...notes] };
}

const WENT_ON = new Set(["PreToolUse", "MessageDisplay", "UserPromptSubmit"]);

function agentWentOn(inputs: readonly HookInput[], after: number, agent: string): boolean {
  for (let position = after + 1; position < inputs.length; position++) {
    const input = inputs[position] as Record<string, unknown> & HookInput;
    const name = input.hook_event_name;
    const inputAgent = typeof input.agent_id === "string" ? input.agent_id : MAIN_AGENT;
    // SubagentStop names the subagent in agent_id; Stop is the main agent's end of turn.
    if (name === "Stop" && agent === MAIN_AGENT && inputAgent === MAIN_AGENT) return true;
    if (name === "SubagentStop" && inputAgent === agent) return true;
    if (WENT_ON.has(name) && inputAgent === agent) return true;
  }
  return false;
}
