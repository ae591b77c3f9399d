import { canonicalToolName, type Run, runSummary } from "@evals/core";
import { defineRule } from "../define-rule.js";
import { RuleOptionsBaseSchema } from "../evaluator.js";
import { indexRun } from "../run-index.js";

export const PERFORMANCE_METRICS = "performance-metrics";

export const PerformanceMetricsOptionsSchema = RuleOptionsBaseSchema.extend({}).strict();

export interface ToolTiming {
  calls: number;
  errors: number;
  /** Calls whose duration is known. */
  timed: number;
  totalMs: number;
  avgMs: number | undefined;
  minMs: number | undefined;
  maxMs: number | undefined;
}

/** What performance-metrics reports (also its result's `metadata`). */
export interface PerformanceMetrics {
  toolCalls: number;
  /** Keyed by canonical tool name (a `Task` call counts as `Agent`). */
  byTool: Record<string, ToolTiming>;
  byAgent: Record<string, number>;
  eventsByType: Record<string, number>;
  /** From the final result, else from the first and last timestamps. */
  durationMs: number | undefined;
  /** Time during which at least one tool was running (overlaps merged). */
  toolTimeMs: number | undefined;
  /** The rest of the run: the model thinking, the agent waiting. */
  idleTimeMs: number | undefined;
  longestGapMs: number | undefined;
  turns: number | undefined;
  costUsd: number | undefined;
  tokens: { input?: number; output?: number; cacheRead?: number; cacheCreation?: number } | undefined;
}

/**
 * performance-metrics: always passes; measures the run: calls and durations per tool, calls per agent,
 * tool time and idle time, turns, cost and tokens when the run knows them.
 */
export const performanceMetricsRule = defineRule({
  id: PERFORMANCE_METRICS,
  summary:
    "Always passes: measures tool calls and durations, agents, tool and idle time, turns, cost and tokens.",
  options: PerformanceMetricsOptionsSchema,
  evaluate(run, _options, { evidence }) {
    const metrics = measureRun(run);
    evidence.add(() => ({
      type: "summary",
      description: [
        `${metrics.toolCalls} tool call${metrics.toolCalls === 1 ? "" : "s"}`,
        metrics.durationMs !== undefined ? `${Math.round(metrics.durationMs)} ms` : undefined,
        metrics.turns !== undefined ? `${metrics.turns} turns` : undefined,
        metrics.costUsd !== undefined ? `$${metrics.costUsd.toFixed(4)}` : undefined,
      ]
        .filter(Boolean)
        .join(", "),
    }));
    return { score: 1, metadata: metrics as unknown as Record<string, unknown> };
  },
});

/** performanceMetrics as a function: `performanceMetricsRule.check`. */
export const performanceMetrics = performanceMetricsRule.check;

export function measureRun(run: Run): PerformanceMetrics {
  const index = indexRun(run);
  // A Map: tool names such as "constructor" or "__proto__" must not hit Object.prototype.
  const timings = new Map<string, ToolTiming>();
  const callsByAgent = new Map<string, number>();
  const intervals: [number, number][] = [];
  // Each event's time, parsed once (Date.parse is the costly part of this evaluator); NaN when unknown.
  const times = new Float64Array(run.events.length);
  for (const event of run.events) times[event.index] = time(event.timestamp) ?? Number.NaN;
  const timeAt = (eventIndex: number): number | undefined => {
    const at = times[eventIndex] as number;
    return Number.isNaN(at) ? undefined : at;
  };
  for (const call of index.calls) {
    // One key per tool: a Task call (the stream's name) counts as Agent (the hooks' name).
    const tool = canonicalToolName(call.name);
    let timing = timings.get(tool);
    if (!timing) {
      timing = {
        calls: 0,
        errors: 0,
        timed: 0,
        totalMs: 0,
        avgMs: undefined,
        minMs: undefined,
        maxMs: undefined,
      };
      timings.set(tool, timing);
    }
    timing.calls++;
    if (call.status === "error" || call.status === "denied") timing.errors++;
    callsByAgent.set(call.agent, (callsByAgent.get(call.agent) ?? 0) + 1);
    const start = timeAt(call.index);
    const end = call.result ? timeAt(call.result.index) : undefined;
    const duration =
      call.result?.duration_ms ?? (start !== undefined && end !== undefined ? end - start : undefined);
    if (duration !== undefined && duration >= 0) {
      timing.timed++;
      timing.totalMs += duration;
      timing.minMs = timing.minMs === undefined ? duration : Math.min(timing.minMs, duration);
      timing.maxMs = timing.maxMs === undefined ? duration : Math.max(timing.maxMs, duration);
      if (start !== undefined) intervals.push([start, start + duration]);
    }
  }
  for (const timing of timings.values())
    timing.avgMs = timing.timed > 0 ? timing.totalMs / timing.timed : undefined;
  // Object.fromEntries defines own properties, so even "__proto__" is an ordinary key here.
  const byTool: Record<string, ToolTiming> = Object.fromEntries(timings);
  const byAgent: Record<string, number> = Object.fromEntries(callsByAgent);

  const eventsByType: Record<string, number> = {};
  let first: number | undefined;
  let last: number | undefined;
  let previous: number | undefined;
  let longestGap: number | undefined;
  for (const event of run.events) {
    eventsByType[event.type] = (eventsByType[event.type] ?? 0) + 1;
    const at = timeAt(event.index);
    if (at === undefined) continue;
    first = first === undefined ? at : Math.min(first, at);
    last = last === undefined ? at : Math.max(last, at);
    if (previous !== undefined && at >= previous) longestGap = Math.max(longestGap ?? 0, at - previous);
    previous = at;
  }
  const span = first !== undefined && last !== undefined ? last - first : undefined;
  const toolTime = intervals.length > 0 ? mergedLength(intervals) : undefined;
  const final = index.finalResult;
  // Every result line counts: a background subagent makes two (turns and tokens add up).
  const summary = runSummary(run);
  const tokens = summary.tokens;
  return {
    toolCalls: index.calls.length,
    byTool,
    byAgent,
    eventsByType,
    durationMs: final?.duration_ms ?? span,
    toolTimeMs: toolTime,
    idleTimeMs: span !== undefined && toolTime !== undefined ? Math.max(0, span - toolTime) : span,
    longestGapMs: longestGap,
    turns: summary.turns ?? countTurns(run),
    costUsd: summary.cost_usd,
    tokens: tokens
      ? {
          input: tokens.input,
          output: tokens.output,
          cacheRead: tokens.cache_read,
          cacheCreation: tokens.cache_creation,
        }
      : undefined,
  };
}

function time(timestamp: string | undefined): number | undefined {
  if (!timestamp) return undefined;
  const ms = Date.parse(timestamp);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The length of the union of intervals (sorted by start in one pass when already in order). */
function mergedLength(intervals: [number, number][]): number {
  let sorted = true;
  for (let i = 1; i < intervals.length; i++) {
    if ((intervals[i] as [number, number])[0] < (intervals[i - 1] as [number, number])[0]) {
      sorted = false;
      break;
    }
  }
  const list = sorted ? intervals : [...intervals].sort((a, b) => a[0] - b[0]);
  let total = 0;
  let [start, end] = list[0] as [number, number];
  for (const [s, e] of list.slice(1)) {
    if (s > end) {
      total += end - start;
      start = s;
      end = e;
    } else end = Math.max(end, e);
  }
  return total + (end - start);
}

/** Model turns of the main agent: its distinct assistant messages (text or tool calls). */
function countTurns(run: Run): number | undefined {
  const ids = new Set<string>();
  for (const event of run.events) {
    if (event.type === "assistant_text" && event.agent === "main" && event.message_id)
      ids.add(event.message_id);
  }
  return ids.size > 0 ? ids.size : undefined;
}
