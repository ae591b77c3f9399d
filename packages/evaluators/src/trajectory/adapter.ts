import type { Run } from "@evals/core";
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
    .map((call) => ({
      name: call.name,
      args: jsonArgs(call.input),
      id: call.id,
      agent: call.agent,
      event_index: call.index,
    }));
}

export function expectedTrajectory(calls: readonly ExpectedCall[]): TrajectoryCall[] {
  return calls.map((call) =>
    typeof call === "string"
      ? { name: call, args: {} }
      : { name: call.tool, args: jsonArgs(call.args ?? {}) },
  );
}

/**
 * A trajectory as agentevals' messages: one assistant message per call, so strict mode compares call
 * by call, in order (a run does not say which calls one model message made together).
 */
export function trajectoryToMessages(calls: readonly TrajectoryCall[]): ChatCompletionMessage[] {
  return calls.map((call, position) => ({
    role: "assistant",
    content: "",
    tool_calls: [
      {
        id: call.id ?? `call_${position}`,
        type: "function",
        function: { name: call.name, arguments: JSON.stringify(call.args) },
      },
    ],
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
