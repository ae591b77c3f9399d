import type { HookInput } from "../hook-input.js";
import { MAIN_AGENT, type Run, type RunEvent, type RunEventInput } from "../run.js";

/**
 * Hooks never say that a call was denied. Two traces show that a call never ran:
 * - it got a PreToolUse and a PermissionRequest, then nothing, and its agent went on (a new tool
 *   call, more text, or it stopped): the permission was denied;
 * - a PostToolBatch answers it with a "did not run" text (a hook's block, a permission message)
 *   while no PostToolUse / PostToolUseFailure came: a PreToolUse hook blocked it (exit 2 or a
 *   `deny` decision) or the permission was denied.
 * For each, this adds a `permission_denied` event right after the call's last hook event (so
 * listToolCalls says `denied`) and a note saying it was inferred. A call whose agent never went on
 * stays `incomplete`. The one place this is decided: `runFromHookEvents` calls it (unless told not
 * to), so the harness, `evals grade` and the hooks' readers infer the same denials.
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
  const calls = new Map(
    run.events.flatMap((event) => (event.type === "tool_call" ? [[event.id, event] as const] : [])),
  );
  // runFromHookEvents emits one permission_request per PermissionRequest input, in order.
  const requestPositions: number[] = [];
  const batched = new Set<string>();
  inputs.forEach((input, position) => {
    if (input.hook_event_name === "PermissionRequest") requestPositions.push(position);
    if (input.hook_event_name === "PostToolBatch") {
      for (const call of batchedCalls(input)) batched.add(call);
    }
  });

  /** Event index -> the denial to insert after it. */
  const denials = new Map<number, RunEventInput>();
  const notes: Run["notes"] = [];
  const deny = (
    after: number,
    call: { id: string; agent: string; name: string; timestamp?: string },
    why: string,
  ) => {
    alreadyDenied.add(call.id);
    denials.set(after, {
      type: "permission_denied",
      agent: call.agent,
      id: call.id,
      tool_name: call.name,
      message: `inferred from hooks: ${why}`,
      ...(call.timestamp ? { timestamp: call.timestamp } : {}),
      sources: ["hooks"],
    });
    notes.push({
      kind: "other",
      message: `${call.name} ${call.id} (agent ${call.agent}) ${why}: inferred denied`,
      tool_use_id: call.id,
    });
  };

  let requestNumber = -1;
  for (const event of run.events) {
    if (event.type !== "permission_request") continue;
    requestNumber++;
    const position = requestPositions[requestNumber];
    if (!event.id || results.has(event.id) || alreadyDenied.has(event.id) || position === undefined) continue;
    if (!agentWentOn(inputs, position, event.agent)) continue;
    deny(
      event.index,
      { id: event.id, agent: event.agent, name: event.tool_name, ...timestampOf(event) },
      "asked for permission, never ran, and the agent went on",
    );
  }
  for (const id of batched) {
    const call = calls.get(id);
    if (!call || results.has(id) || alreadyDenied.has(id)) continue;
    deny(
      call.index,
      { id, agent: call.agent, name: call.name, ...timestampOf(call) },
      "was answered in its PostToolBatch without running (a PreToolUse hook or a permission blocked it)",
    );
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

function timestampOf(event: { timestamp?: string | undefined }): { timestamp?: string } {
  return event.timestamp ? { timestamp: event.timestamp } : {};
}

/**
 * What Claude Code answers in place of a call that did not run: a PreToolUse hook's block
 * ("PreToolUse:Bash hook error: ...") or a permission denial ("Claude requested permissions to ...").
 * Some versions skip PostToolUse for calls that did run, so a batch answer alone is not enough.
 */
const NOT_RUN_ANSWER = /hook error|requested permissions|permission|denied|blocked/i;

/** The tool_use_ids a PostToolBatch input answered with a "did not run" answer. */
function batchedCalls(input: HookInput): string[] {
  const calls = (input as { tool_calls?: unknown }).tool_calls;
  if (!Array.isArray(calls)) return [];
  return calls.flatMap((call) => {
    const { tool_use_id: id, tool_response: response } = (call ?? {}) as Record<string, unknown>;
    return typeof id === "string" && typeof response === "string" && NOT_RUN_ANSWER.test(response)
      ? [id]
      : [];
  });
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
