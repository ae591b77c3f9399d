import type { FinalResultEvent, Run } from "./run.js";
import { eventsOfType } from "./tool-calls.js";

/** Token counts of a run, summed over its result lines. */
export interface TokenTotals {
  input: number;
  output: number;
  cache_creation: number;
  cache_read: number;
}

/** What a run added up to: turns, tokens, cost and the final text. */
export interface RunSummary {
  /** How many result lines the run has: 2 when a background subagent gave the parent another turn. */
  results: number;
  /** Turns of every result line, added up (undefined when no result line has them). */
  turns?: number;
  /** Tokens of every result line, added up (undefined when no result line has usage). */
  tokens?: TokenTotals;
  /** The run's cost in USD: the last result line's `total_cost_usd`, already a running total. */
  cost_usd?: number;
  /** The agent's final text: the last result line's `result`, else the main agent's last text. */
  final_text?: string;
  /** The last result line, when there is one. */
  final?: FinalResultEvent;
}

/**
 * Sums up a run. A background subagent makes the CLI write two result lines (the parent gets
 * another turn when the child ends): their `num_turns` and `usage` are per line and add up, while
 * `total_cost_usd` (and `modelUsage`) are running totals, so the last line's value is the run's.
 */
export function runSummary(run: Pick<Run, "events">): RunSummary {
  const finals = eventsOfType(run, "final_result");
  const last = finals[finals.length - 1];
  let turns: number | undefined;
  let tokens: TokenTotals | undefined;
  for (const final of finals) {
    if (final.num_turns !== undefined) turns = (turns ?? 0) + final.num_turns;
    if (final.usage) {
      tokens ??= { input: 0, output: 0, cache_creation: 0, cache_read: 0 };
      tokens.input += final.usage.input_tokens ?? 0;
      tokens.output += final.usage.output_tokens ?? 0;
      tokens.cache_creation += final.usage.cache_creation_input_tokens ?? 0;
      tokens.cache_read += final.usage.cache_read_input_tokens ?? 0;
    }
  }
  const cost = [...finals].reverse().find((final) => final.total_cost_usd !== undefined)?.total_cost_usd;
  const finalText = last?.result ?? lastMainText(run);
  return {
    results: finals.length,
    ...(turns !== undefined ? { turns } : {}),
    ...(tokens ? { tokens } : {}),
    ...(cost !== undefined ? { cost_usd: cost } : {}),
    ...(finalText !== undefined ? { final_text: finalText } : {}),
    ...(last ? { final: last } : {}),
  };
}

function lastMainText(run: Pick<Run, "events">): string | undefined {
  const texts = eventsOfType(run, "assistant_text").filter((event) => event.agent === "main");
  return texts[texts.length - 1]?.text;
}
