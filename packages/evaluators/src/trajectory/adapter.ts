import { canonicalToolName, type Run } from "@evals/core";
import { z } from "zod";
import { indexRun } from "../run-index.js";

/** One call of a trajectory: what agentevals compares (name and arguments), plus where it came from. */
export interface TrajectoryCall {
  name: string;
  args: Record<string, unknown>;
  /** The tool_use_id, for calls taken from a run. */
  id?: string;
  agent?: string;
  /** Index of the tool_call event in run.events. */
  event_index?: number;
  /**
   * The model message that made the call. Consecutive calls with the same message id are one step
   * (calls made in parallel), as agentevals compares them in strict mode. Expected calls written as a
   * group (`[["Read", "Grep"], "Edit"]`) share one.
   */
  message_id?: string;
  /** The call was attempted and never ran (a permission denial or a PreToolUse hook stopped it). */
  denied?: boolean;
}

/** An expected call as a case file writes it: a tool name, or `{ tool, args }`. */
export const ExpectedCallSchema = z.union([
  z.string().min(1),
  z
    .object({
      tool: z.string().min(1),
      /** The arguments to compare, per the argument mode (`superset`: these keys must match). */
      args: z.record(z.string(), z.unknown()).optional(),
    })
    .strict(),
]);
export type ExpectedCall = z.input<typeof ExpectedCallSchema>;

/**
 * One step of an expected trajectory: a call, or a list of calls made together in one model message
 * (parallel calls; strict mode compares them as one step, in any order).
 */
export const ExpectedStepSchema = z.union([ExpectedCallSchema, z.array(ExpectedCallSchema).min(1)]);
export type ExpectedStep = z.input<typeof ExpectedStepSchema>;

/** The OpenAI-style chat message agentevals reads. */
export interface ChatCompletionMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  tool_calls?: {
    id: string;
    type: "function";
    function: { name: string; arguments: string };
  }[];
  tool_call_id?: string;
}

/** JSON round trip: agentevals compares the parsed `arguments` strings, so we compare the same values. */
function jsonArgs(args: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(args ?? {})) as Record<string, unknown>;
}

/**
 * The tool calls of a run as a trajectory: every agent's calls in order (`agent: "all"`), the main
 * agent's, or those of the subagents with that id or type.
 */
export function trajectoryOf(run: Run, options: { agent?: string } = {}): TrajectoryCall[] {
  const agent = options.agent ?? "all";
  const types = new Map(run.agents.map((info) => [info.id, info.type]));
  return indexRun(run)
    .calls.filter((call) => agent === "all" || call.agent === agent || types.get(call.agent) === agent)
    .map((call) => {
      const event = run.events[call.index];
      const messageId = event?.type === "tool_call" ? event.message_id : undefined;
      return {
        name: call.name,
        args: jsonArgs(call.input),
        id: call.id,
        agent: call.agent,
        event_index: call.index,
        ...(messageId !== undefined ? { message_id: messageId } : {}),
        ...(call.status === "denied" ? { denied: true } : {}),
      };
    });
}

export function expectedTrajectory(steps: readonly ExpectedStep[]): TrajectoryCall[] {
  const toCall = (call: ExpectedCall): TrajectoryCall =>
    typeof call === "string"
      ? { name: call, args: {} }
      : { name: call.tool, args: jsonArgs(call.args ?? {}) };
  return steps.flatMap((step, position) =>
    Array.isArray(step)
      ? step.map((call) => ({ ...toCall(call), message_id: `expected-step-${position + 1}` }))
      : [toCall(step)],
  );
}

/**
 * The steps of a trajectory: consecutive calls of one model message (same agent and message id)
 * together, every other call alone.
 */
export function trajectorySteps<T extends Pick<TrajectoryCall, "message_id" | "agent">>(
  calls: readonly T[],
): T[][] {
  const steps: T[][] = [];
  let previous: T | undefined;
  for (const call of calls) {
    const step = steps[steps.length - 1];
    const together =
      step !== undefined &&
      previous?.message_id !== undefined &&
      previous.message_id === call.message_id &&
      previous.agent === call.agent;
    if (together) step.push(call);
    else steps.push([call]);
    previous = call;
  }
  return steps;
}

/**
 * A trajectory as agentevals' messages: one assistant message per step (the calls of one model
 * message together, as agentevals groups them), tool names canonical (`Task` -> `Agent`) since
 * agentevals compares names as they are.
 */
export function trajectoryToMessages(calls: readonly TrajectoryCall[]): ChatCompletionMessage[] {
  let position = 0;
  return trajectorySteps(calls).map((step) => ({
    role: "assistant",
    content: "",
    tool_calls: step.map((call) => ({
      id: call.id ?? `call_${position++}`,
      type: "function" as const,
      function: { name: canonicalToolName(call.name), arguments: JSON.stringify(call.args) },
    })),
  }));
}

/**
 * The whole conversation of a run as chat messages (for LLM judges or other agentevals evaluators): the
 * prompts, the agent's text, its tool calls grouped by model message, and the tool results.
 */
export function runToMessages(run: Run, options: { agent?: string } = {}): ChatCompletionMessage[] {
  const agent = options.agent ?? "main";
  const messages: ChatCompletionMessage[] = [];
  let open: ChatCompletionMessage | undefined;
  const closeAssistant = () => {
    open = undefined;
  };
  for (const event of run.events) {
    if (agent !== "all" && event.agent !== agent) continue;
    if (event.type === "user_message") {
      closeAssistant();
      messages.push({ role: "user", content: event.text });
    } else if (event.type === "assistant_text") {
      if (!open || open.tool_calls) {
        open = { role: "assistant", content: "" };
        messages.push(open);
      }
      open.content = open.content ? `${open.content}\n${event.text}` : event.text;
    } else if (event.type === "tool_call") {
      if (!open) {
        open = { role: "assistant", content: "" };
        messages.push(open);
      }
      open.tool_calls = [
        ...(open.tool_calls ?? []),
        {
          id: event.id,
          type: "function",
          function: { name: event.name, arguments: JSON.stringify(event.input) },
        },
      ];
    } else if (event.type === "tool_result") {
      closeAssistant();
      messages.push({
        role: "tool",
        tool_call_id: event.id,
        content: typeof event.output === "string" ? event.output : JSON.stringify(event.output ?? ""),
      });
    }
  }
  return messages;
}
