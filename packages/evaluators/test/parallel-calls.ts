import { MAIN_AGENT, type Run, RunBuilder } from "@evals/core";

/** One of the calls made at once: its id, tool and input. */
type ParallelCall = [id: string, name: string, input: Record<string, unknown>];

/**
 * A run (in /repo) of the main agent making `calls` at once, after `prompt` when given, answered in
 * the order `answered` gives (call ids; a call left out never gets its result), each result "ok".
 */
export function parallelCalls(calls: ParallelCall[], answered: string[], prompt?: string): Run {
  const builder = new RunBuilder(["stream"]);
  builder.meta.cwd = "/repo";
  const agent = MAIN_AGENT;
  if (prompt !== undefined) builder.push({ type: "user_message", agent, text: prompt });
  for (const [id, name, input] of calls) builder.push({ type: "tool_call", agent, id, name, input });
  for (const id of answered) builder.push({ type: "tool_result", agent, id, output: "ok", is_error: false });
  return builder.build();
}
