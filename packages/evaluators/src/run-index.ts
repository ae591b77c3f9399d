import {
  type AssistantTextEvent,
  type FinalResultEvent,
  listToolCalls,
  MAIN_AGENT,
  type Run,
  type RunEvent,
  type ToolCallView,
  type UserMessageEvent,
} from "@evals/core";
import { appendTo } from "./collections.js";
import { type CallKind, callKind } from "./tools.js";

/**
 * The views of a run every evaluator needs, built once per Run object in one pass each (evaluators
 * share it through a WeakMap, so running all of them costs a few linear passes, never n²).
 */
export interface RunIndex {
  run: Run;
  cwd: string | undefined;
  calls: ToolCallView[];
  callById: Map<string, ToolCallView>;
  /** Calls grouped by agent, in order. */
  callsByAgent: Map<string, ToolCallView[]>;
  /** Agent id -> its parent agent id (main has none). */
  parentOf: Map<string, string | undefined>;
  /** Agent id -> its type ("main", "general-purpose", ...). */
  typeOf: Map<string, string>;
  /** The user's messages to the main agent (the prompts). */
  prompts: UserMessageEvent[];
  texts: AssistantTextEvent[];
  finalResult: FinalResultEvent | undefined;
  /** Ids of calls that a permission denial or a PreToolUse hook stopped before they ran. */
  blocked: Set<string>;
}

const cache = new WeakMap<Run, RunIndex>();

export function indexRun(run: Run): RunIndex {
  const cached = cache.get(run);
  if (cached) return cached;
  const calls = listToolCalls(run);
  const callById = new Map<string, ToolCallView>();
  const callsByAgent = new Map<string, ToolCallView[]>();
  for (const call of calls) {
    callById.set(call.id, call);
    appendTo(callsByAgent, call.agent, call);
  }
  const parentOf = new Map<string, string | undefined>([[MAIN_AGENT, undefined]]);
  const typeOf = new Map<string, string>([[MAIN_AGENT, "main"]]);
  for (const agent of run.agents) {
    parentOf.set(agent.id, agent.id === MAIN_AGENT ? undefined : (agent.parent ?? MAIN_AGENT));
    typeOf.set(agent.id, agent.type);
  }
  const prompts: UserMessageEvent[] = [];
  const texts: AssistantTextEvent[] = [];
  let finalResult: FinalResultEvent | undefined;
  const blocked = new Set<string>();
  for (const event of run.events) {
    if (event.type === "user_message" && event.agent === MAIN_AGENT) prompts.push(event);
    else if (event.type === "assistant_text") texts.push(event);
    else if (event.type === "final_result") {
      finalResult = event;
      // Each result line lists its own turn's denials (a background subagent makes two lines).
      for (const denial of event.permission_denials ?? []) {
        if (denial.tool_use_id) blocked.add(denial.tool_use_id);
      }
    } else if (event.type === "permission_denied" && event.id) blocked.add(event.id);
  }
  const index: RunIndex = {
    run,
    cwd: run.cwd,
    calls,
    callById,
    callsByAgent,
    parentOf,
    typeOf,
    prompts,
    texts,
    finalResult,
    blocked,
  };
  cache.set(run, index);
  return index;
}

const callKinds = new WeakMap<RunIndex, Uint8Array>();
const KINDS: readonly CallKind[] = ["read", "execute", "other"];

/**
 * callKind of a call of the index, worked out once however many rules ask (a Bash command's is
 * found by parsing it: a long run's commands are too many to keep parsed).
 */
export function kindOf(index: RunIndex, call: ToolCallView): CallKind {
  if (index.calls[call.position] !== call) return callKind(call);
  let known = callKinds.get(index);
  if (known === undefined) {
    known = new Uint8Array(index.calls.length);
    callKinds.set(index, known);
  }
  let code = known[call.position] as number;
  if (code === 0) {
    code = KINDS.indexOf(callKind(call)) + 1;
    known[call.position] = code;
  }
  return KINDS[code - 1] as CallKind;
}

/** The agent and its ancestors, nearest first (a subagent's approvals may come from its parent). */
export function agentLineage(index: Pick<RunIndex, "parentOf">, agent: string): string[] {
  const lineage = [agent];
  let current = index.parentOf.get(agent);
  while (current !== undefined && !lineage.includes(current)) {
    lineage.push(current);
    current = index.parentOf.get(current);
  }
  if (!lineage.includes(MAIN_AGENT)) lineage.push(MAIN_AGENT);
  return lineage;
}

/**
 * What an agent said in an event, if it said something: its text, the main agent's result line, or a
 * subagent's last message (hooks-only runs have no assistant text, only these).
 */
export function agentSaid(event: RunEvent): { agent: string; text: string } | undefined {
  if (event.type === "assistant_text") return { agent: event.agent, text: event.text };
  if (event.type === "final_result" && event.result) return { agent: MAIN_AGENT, text: event.result };
  if (event.type === "subagent_stop" && event.last_message)
    return { agent: event.agent_id, text: event.last_message };
  return undefined;
}

/** The text of a tool result's output (a string, content blocks, or a structured response). */
export function outputText(output: unknown): string {
  if (output === undefined || output === null) return "";
  if (typeof output === "string") return output;
  if (Array.isArray(output)) {
    return output
      .map((block) =>
        block && typeof block === "object" && "text" in block ? String(block.text) : outputText(block),
      )
      .join("");
  }
  if (typeof output === "object") {
    const record = output as Record<string, unknown>;
    const parts = ["stdout", "stderr", "content", "error", "message"]
      .map((key) => record[key])
      .filter((value): value is string => typeof value === "string" && value !== "");
    if (parts.length > 0) return parts.join("\n");
    return JSON.stringify(output);
  }
  return String(output);
}
