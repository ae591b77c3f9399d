import type { CapturedEvent } from "@evals/core";
import { COLLECTOR_STATUS } from "./collector.js";
import { DEFAULT_HOOK_EVENTS } from "./events.js";

/**
 * Whether a capture lost events: Claude Code's stream (with `--include-hook-events`) has a
 * `system/hook_started` line for every hook it ran, and a `system/hook_response` line with the
 * outcome. An event the capture hook was run for but that is missing from events.jsonl (the
 * collector down, a failed or timed-out answer, a failed write) was lost.
 */

/** One event name whose capture has fewer lines than the hook fired. */
export interface LostHookEvent {
  /** The hook event name (PreToolUse, ...). */
  event: string;
  /** How many times the capture hook was run for it, from the stream. */
  fired: number;
  /** How many lines events.jsonl has for it. */
  captured: number;
}

export interface LostHookEventsInput {
  /** The run's stream-json lines, from a CLI run with `--include-hook-events`. */
  streamLines: readonly unknown[];
  /** The run's captured lines (readEvents). */
  captured: readonly Pick<CapturedEvent, "event">[];
  /** The events the capture hook was registered for (default DEFAULT_HOOK_EVENTS). */
  events?: readonly string[];
  /**
   * How the events were captured. "http": the collector's answers are told from other hooks' by
   * their status (COLLECTOR_STATUS), so other hooks on the same events are not counted. "command":
   * a command hook's lines look like any other's, so only pass `events` no other hook is registered for.
   */
  capture: "http" | "command";
  /**
   * The collector's own count of events it received but did not write (HookCollector.failed): the
   * only sign of a lost event the stream has no hook lines for (InstructionsLoaded).
   */
  collectorFailed?: Readonly<Record<string, number>>;
}

/** The events that fired more often than they were captured, in the order of `events`. */
export function lostHookEvents(input: LostHookEventsInput): LostHookEvent[] {
  const started = new Map<string, number>();
  const others = new Map<string, number>();
  for (const raw of input.streamLines) {
    const line = raw as HookLine | null;
    if (line?.type !== "system" || typeof line.hook_event !== "string") continue;
    if (line.subtype === "hook_started") bump(started, line.hook_event);
    else if (line.subtype === "hook_response" && input.capture === "http" && isOtherHook(line))
      bump(others, line.hook_event);
  }
  const captured = new Map<string, number>();
  for (const line of input.captured) bump(captured, line.event.hook_event_name);
  const lost: LostHookEvent[] = [];
  for (const event of new Set(input.events ?? DEFAULT_HOOK_EVENTS)) {
    const have = captured.get(event) ?? 0;
    // A failure the stream also shows is counted once: the larger of the two tells.
    const fired = Math.max(
      (started.get(event) ?? 0) - (others.get(event) ?? 0),
      have + (input.collectorFailed?.[event] ?? 0),
    );
    if (have < fired) lost.push({ event, fired, captured: have });
  }
  return lost;
}

/**
 * One sentence for a run's verdict: which events were lost and where to look, e.g. "the capture
 * lost 1 of 2 PostToolUse hook events (events.jsonl has fewer lines than the CLI fired hooks); ...".
 */
export function describeLostEvents(lost: readonly LostHookEvent[], runDir: string): string {
  const counts = lost.map((entry) => `${entry.fired - entry.captured} of ${entry.fired} ${entry.event}`);
  return (
    `the capture lost ${counts.join(", ")} hook event(s): the CLI ran the capture hook for them but ` +
    `${runDir}/events.jsonl does not have them, so the run is not graded from a partial capture ` +
    "(the stream's hook_response lines and hook-errors.log say why; run it again, or capture with " +
    'the command hook: capture: "command")'
  );
}

/**
 * A hook_response that is certainly not the collector's: a command hook's (an exit code under
 * 100), or another HTTP hook's successful answer (a status other than the collector's).
 */
function isOtherHook(line: HookLine): boolean {
  if (typeof line.exit_code !== "number") return false;
  return line.exit_code < 100 || (line.outcome === "success" && line.exit_code !== COLLECTOR_STATUS);
}

/** The fields of a stream-json `system/hook_*` line read here. */
interface HookLine {
  type?: unknown;
  subtype?: unknown;
  hook_event?: unknown;
  exit_code?: unknown;
  outcome?: unknown;
}

function bump(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}
