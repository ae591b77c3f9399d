import {
  canonicalToolName,
  type FinalResultEvent,
  MAIN_AGENT,
  type Run,
  type RunEvent,
  runSummary,
  type ToolCallView,
  type ToolResultEvent,
} from "@evals/core";
import { BusyTime } from "../busy-time.js";
import { defineRule } from "../define-rule.js";
import { RuleOptionsBaseSchema } from "../evaluator.js";
import { type RunSoFar, type RunVisitor, visitRun } from "../run-visit.js";

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
  visit(_options, { index, evidence }) {
    const measuring = measuringRun(index);
    return {
      event: measuring.event,
      call: measuring.call,
      end() {
        const metrics = measuring.end();
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
    };
  },
});

/** performanceMetrics as a function: `performanceMetricsRule.check`. */
export const performanceMetrics = performanceMetricsRule.check;

export function measureRun(run: Run): PerformanceMetrics {
  return visitRun(run, (soFar) => [measuringRun(soFar)])[0] as PerformanceMetrics;
}

/** Main-agent message ids remembered to count turns (a message's texts come together). */
const RECENT_MESSAGES = 256;

/**
 * Measures a run while it is visited, keeping running totals and maxima only: per tool, per agent,
 * per event type, the busy spans of BusyTime, the result lines and the last main-agent message ids.
 */
function measuringRun(soFar: Pick<RunSoFar, "finalResult">): RunVisitor<PerformanceMetrics> {
  // A Map: tool names such as "constructor" or "__proto__" must not hit Object.prototype.
  const timings = new Map<string, ToolTiming>();
  const timingByName = new Map<string, ToolTiming>();
  const callsByAgent = new Map<string, number>();
  const busy = new BusyTime();
  let toolCalls = 0;
  const eventsByType: Record<string, number> = {};
  let first: number | undefined;
  let last: number | undefined;
  let previous: number | undefined;
  let longestGap: number | undefined;
  // The tool_call event just visited and its time: its call is visited next.
  let callEvent = -1;
  let callTime: number | undefined;
  // Result times a call needed before its result event is visited (Date.parse is this rule's cost).
  // (A few at a time: a call's result event is visited soon after the call.)
  const resultTimes = new RecentResults();
  const finals: FinalResultEvent[] = [];
  const messages = new Set<string>();
  let turns = 0;

  const event = (event: RunEvent): void => {
    eventsByType[event.type] = (eventsByType[event.type] ?? 0) + 1;
    let at: number | undefined;
    const known = event.type === "tool_result" ? resultTimes.take(event) : NOT_KNOWN;
    if (known !== NOT_KNOWN) at = known;
    else at = time(event.timestamp);
    if (event.type === "tool_call") {
      callEvent = event.index;
      callTime = at;
    } else if (event.type === "final_result") finals.push(event);
    else if (event.type === "assistant_text" && event.agent === MAIN_AGENT && event.message_id)
      countTurn(event.message_id);
    if (at === undefined) return;
    first = first === undefined ? at : Math.min(first, at);
    last = last === undefined ? at : Math.max(last, at);
    if (previous !== undefined && at >= previous) longestGap = Math.max(longestGap ?? 0, at - previous);
    previous = at;
  };

  const countTurn = (id: string): void => {
    if (messages.has(id)) return;
    turns++;
    messages.add(id);
    if (messages.size > RECENT_MESSAGES) messages.delete(messages.values().next().value as string);
  };

  // One key per tool: a Task call (the stream's name) counts as Agent (the hooks' name). Found by the
  // name a call gives, as it was the first time.
  const timingOf = (name: string): ToolTiming => {
    let timing = timingByName.get(name);
    if (timing) return timing;
    const tool = canonicalToolName(name);
    timing = timings.get(tool);
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
    timingByName.set(name, timing);
    return timing;
  };

  const resultTime = (call: ToolCallView, result: ToolResultEvent): number | undefined => {
    const at = time(result.timestamp);
    // Its event comes after the call's (unless a run lists the result first): it takes this time.
    if (result.index > call.index) resultTimes.add(result, at);
    return at;
  };

  const call = (call: ToolCallView): void => {
    toolCalls++;
    const timing = timingOf(call.name);
    timing.calls++;
    if (call.status === "error" || call.status === "denied") timing.errors++;
    callsByAgent.set(call.agent, (callsByAgent.get(call.agent) ?? 0) + 1);
    const start = call.index === callEvent ? callTime : time(call.timestamp);
    let duration = call.result?.duration_ms;
    if (duration === undefined && start !== undefined && call.result) {
      const end = resultTime(call, call.result);
      if (end !== undefined) duration = end - start;
    }
    if (duration !== undefined && duration >= 0) {
      timing.timed++;
      timing.totalMs += duration;
      timing.minMs = timing.minMs === undefined ? duration : Math.min(timing.minMs, duration);
      timing.maxMs = timing.maxMs === undefined ? duration : Math.max(timing.maxMs, duration);
      if (start !== undefined) busy.add(start, start + duration);
    }
  };

  const end = (): PerformanceMetrics => {
    for (const timing of timings.values())
      timing.avgMs = timing.timed > 0 ? timing.totalMs / timing.timed : undefined;
    const span = first !== undefined && last !== undefined ? last - first : undefined;
    const toolTime = busy.total();
    // Every result line counts: a background subagent makes two (turns and tokens add up).
    const summary = runSummary({ events: finals });
    const tokens = summary.tokens;
    return {
      toolCalls,
      // Object.fromEntries defines own properties, so even "__proto__" is an ordinary key here.
      byTool: Object.fromEntries(timings),
      byAgent: Object.fromEntries(callsByAgent),
      eventsByType,
      durationMs: soFar.finalResult?.duration_ms ?? span,
      toolTimeMs: toolTime,
      idleTimeMs: span !== undefined && toolTime !== undefined ? Math.max(0, span - toolTime) : span,
      longestGapMs: longestGap,
      turns: summary.turns ?? (turns > 0 ? turns : undefined),
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
  };

  return { event, call, end };
}

/** What RecentResults.take answers for a result whose time was not kept. */
const NOT_KNOWN = Symbol("not known");

/** The times of results whose events are still to come, oldest first (a handful at a time). */
class RecentResults {
  private readonly results: ToolResultEvent[] = [];
  private readonly times: (number | undefined)[] = [];

  add(result: ToolResultEvent, at: number | undefined): void {
    this.results.push(result);
    this.times.push(at);
  }

  take(result: ToolResultEvent): number | undefined | typeof NOT_KNOWN {
    const at = this.results.indexOf(result);
    if (at < 0) return NOT_KNOWN;
    // Mostly the oldest: taken without the arrays splice makes.
    if (at === 0) {
      this.results.shift();
      return this.times.shift();
    }
    const time = this.times[at];
    this.results.splice(at, 1);
    this.times.splice(at, 1);
    return time;
  }
}

/** The minute the last timestamp was in ("2026-11-21T10:00:"), and when it began. */
let minute = "";
let minuteStart = 0;

/**
 * A timestamp's time (ms). A run's timestamps mostly share their minute with the one before: only the
 * seconds of `YYYY-MM-DDTHH:MM:SS.sssZ` are read then (Date.parse was this rule's largest cost).
 */
function time(timestamp: string | undefined): number | undefined {
  if (!timestamp) return undefined;
  const inMinute = msInMinute(timestamp);
  // Whether it starts with the minute: lastIndexOf from 0 costs less than startsWith or a slice.
  if (inMinute >= 0 && minute !== "" && timestamp.lastIndexOf(minute, 0) === 0) return minuteStart + inMinute;
  const ms = Date.parse(timestamp);
  if (Number.isNaN(ms)) return undefined;
  // ":" before the seconds: the slice is a minute.
  if (inMinute >= 0 && ms >= 0 && timestamp.charCodeAt(16) === 58) {
    minute = timestamp.slice(0, 17);
    minuteStart = ms - (ms % 60_000);
  }
  return ms;
}

/**
 * The milliseconds into its minute of a timestamp that ends its 24 characters with `SS.sssZ` (seconds
 * 00 to 59, a dot, three digits, Z); -1 for any other.
 */
function msInMinute(timestamp: string): number {
  if (timestamp.length !== 24 || timestamp.charCodeAt(23) !== 90 || timestamp.charCodeAt(19) !== 46)
    return -1;
  const s10 = digitAt(timestamp, 17);
  const s1 = digitAt(timestamp, 18);
  const ms100 = digitAt(timestamp, 20);
  const ms10 = digitAt(timestamp, 21);
  const ms1 = digitAt(timestamp, 22);
  if (s10 > 5 || s1 > 9 || ms100 > 9 || ms10 > 9 || ms1 > 9) return -1;
  return (s10 * 10 + s1) * 1000 + ms100 * 100 + ms10 * 10 + ms1;
}

/** The digit at `at`, or a number over 9 when it is no digit (a character before "0" wraps around). */
function digitAt(text: string, at: number): number {
  return (text.charCodeAt(at) - 48) >>> 0;
}
