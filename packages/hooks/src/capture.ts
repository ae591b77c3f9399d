import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  CAPTURED_EVENT_VERSION,
  type CapturedEvent,
  isSafeRunId,
  limitDepth,
  MAX_EVENT_DEPTH,
  outputRoot,
  runIdProblem,
} from "@evals/core";
import { type HookLimits, hookLimitsFromEnv } from "./config.js";
import { type HookErrorEntry, logHookError } from "./hook-errors.js";
import { EVENTS_FILE, HOOK_ERRORS_FILE, OUTPUT_FOLDER, TOOL_CALLS_FILE } from "./paths.js";
import { hookSeq } from "./seq.js";
import { toolCallEntry } from "./tool-call-entry.js";
import { truncateLargeFields } from "./truncate.js";
import { appendWholeLine, dropUnfinishedLine, ensureRunDir, errorLogDir, releaseReserve } from "./write.js";

/**
 * What one hook call does with the JSON Claude Code sent it: append it to events.jsonl as a
 * CapturedEvent, append the tool-call view to tool-calls.jsonl, and log its own problems to
 * hook-errors.log. It throws nothing. No zod here: this runs once per tool call.
 */

export interface CaptureContext {
  /** Where TEST_RUN_ID, EVALS_OUTPUT_DIR and CLAUDE_PROJECT_DIR are read from. */
  env: Record<string, string | undefined>;
  cwd: string;
  pid: number;
  /** Orders the lines of a run; see `hookSeq`. */
  seq: number;
  limits: HookLimits;
  /** Problems reading stdin, logged with the run. */
  stdinProblems?: Pick<HookErrorEntry, "kind" | "message">[];
  /**
   * The pid of a shell hook whose append of this event failed half-way (EVALS_HOOK_UNFINISHED_PID):
   * its unfinished line is removed before this event is written.
   */
  unfinishedPid?: number;
  /**
   * Keep the run's reserve (RESERVE_FILE) for logging on a full disk. The hook executable does;
   * in-process capture (captureHookEvent) does not by default, as no SessionEnd may come to remove it.
   */
  keepReserve?: boolean;
}

export interface CaptureOutcome {
  runId: string;
  runDir: string;
  /** Whether a line was appended to events.jsonl. */
  captured: boolean;
  /** Whether a line was appended to tool-calls.jsonl. */
  toolCallWritten: boolean;
  /** Kinds of the problems logged to hook-errors.log. */
  problems: HookErrorEntry["kind"][];
}

type HookPayload = Record<string, unknown> & { hook_event_name: string };

/**
 * Captures one hook input in this process, exactly as the `evals-hook` executable does (for
 * in-process hooks such as the Agent SDK's). It does not look at TEST_MODE: calling it is the
 * decision to capture. Options default to this process's env, cwd and pid, and the env's limits.
 */
export function captureHookEvent(input: unknown, options: Partial<CaptureContext> = {}): CaptureOutcome {
  const env = options.env ?? process.env;
  let text: string;
  try {
    text = JSON.stringify(input) ?? "";
  } catch (error) {
    text = `(not serializable: ${describe(error)})`;
  }
  return captureHookInput(text, {
    env,
    cwd: options.cwd ?? process.cwd(),
    pid: options.pid ?? process.pid,
    seq: options.seq ?? hookSeq(),
    limits: options.limits ?? hookLimitsFromEnv(env),
    ...(options.stdinProblems ? { stdinProblems: options.stdinProblems } : {}),
    ...(options.keepReserve ? { keepReserve: true } : {}),
  });
}

export function captureHookInput(text: string, context: CaptureContext): CaptureOutcome {
  const parsed = parsePayload(text);
  const payload = parsed.ok ? parsed.payload : undefined;
  const run = chooseRunId(context.env.TEST_RUN_ID, payload?.session_id);
  const root = outputRoot(context.env, context.cwd);
  const runDir = join(root, OUTPUT_FOLDER, run.id);
  const outcome: CaptureOutcome = {
    runId: run.id,
    runDir,
    captured: false,
    toolCallWritten: false,
    problems: [],
  };
  const eventName = payload?.hook_event_name;
  const report = (kind: HookErrorEntry["kind"], message: string, extra: Partial<HookErrorEntry> = {}) => {
    outcome.problems.push(kind);
    const logDir = errorLogDir(root, run.id);
    if (!logDir) return;
    logHookError(join(logDir, HOOK_ERRORS_FILE), {
      run_id: run.id,
      pid: context.pid,
      kind,
      message,
      ...(eventName ? { hook_event_name: eventName } : {}),
      ...extra,
    });
  };

  try {
    try {
      ensureRunDir(root, run.id, { reserve: context.keepReserve === true });
    } catch (error) {
      report("write_failed", describe(error), text ? { input_head: text.slice(0, 200) } : {});
      return outcome;
    }
    // Said once per run folder (when it has no events yet), not on every call.
    if (run.problem && !existsSync(join(runDir, EVENTS_FILE))) report("run_id", run.problem);
    for (const problem of context.stdinProblems ?? []) report(problem.kind, problem.message);
    if (!parsed.ok) {
      report("bad_input", parsed.problem, { input_head: text.slice(0, 200) });
      return outcome;
    }
    const line = capturedLine(parsed.payload, run.id, context);
    if (!line) {
      report(
        "line_too_large",
        `the event stays over ${context.limits.maxLineBytes} bytes even with every field cut`,
      );
      return outcome;
    }
    if (context.unfinishedPid !== undefined)
      dropUnfinishedLine(join(runDir, EVENTS_FILE), context.unfinishedPid);
    try {
      appendWholeLine(join(runDir, EVENTS_FILE), jsonLine(line));
      outcome.captured = true;
    } catch (error) {
      // On a full disk the reserve makes room for the error line.
      releaseReserve(runDir);
      report("write_failed", describe(error), { input_head: text.slice(0, 200) });
      return outcome;
    }
    // The run may be over (SessionEnd is not registered by default): the next event makes it again.
    if (eventName === "Stop" || eventName === "SessionEnd") releaseReserve(runDir);
    const entry = toolCallEntry(line);
    if (entry === undefined) return outcome;
    if (typeof entry === "string") {
      report("tool_call_skipped", entry);
      return outcome;
    }
    try {
      appendWholeLine(join(runDir, TOOL_CALLS_FILE), jsonLine(entry));
      outcome.toolCallWritten = true;
    } catch (error) {
      releaseReserve(runDir);
      report("write_failed", describe(error));
    }
  } catch (error) {
    report("internal", describe(error));
  }
  return outcome;
}

function parsePayload(text: string): { ok: true; payload: HookPayload } | { ok: false; problem: string } {
  if (text.trim() === "") return { ok: false, problem: "stdin was empty" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, problem: `stdin is not JSON: ${describe(error)}` };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return {
      ok: false,
      problem: `stdin is JSON but not an object (${value === null ? "null" : Array.isArray(value) ? "array" : typeof value})`,
    };
  }
  const name = (value as Record<string, unknown>).hook_event_name;
  if (typeof name !== "string" || name === "") {
    return { ok: false, problem: "stdin is not a hook input: it has no hook_event_name" };
  }
  return { ok: true, payload: value as HookPayload };
}

/**
 * The run folder's name. A safe TEST_RUN_ID is used as is; an unsafe one is never used as a path
 * but replaced by `invalid-<hash of it>` (so one run's calls still share a folder); an unset or
 * empty one by `session-<session_id>`, else `no-run-id`.
 */
export function chooseRunId(raw: string | undefined, sessionId: unknown): { id: string; problem?: string } {
  const problem = runIdProblem(raw);
  if (!problem) return { id: raw as string };
  if (raw) {
    const id = `invalid-${fnv1a(raw)}`;
    return {
      id,
      problem: `TEST_RUN_ID ${JSON.stringify(raw.slice(0, 200))} ${problem}; captured to ${id} instead`,
    };
  }
  const bySession = `session-${sessionId}`;
  const id = typeof sessionId === "string" && isSafeRunId(bySession) ? bySession : "no-run-id";
  return { id, problem: `TEST_RUN_ID ${problem}; captured to ${id} instead` };
}

/** Builds the events.jsonl line, cutting large fields; undefined when it cannot fit the line limit. */
function capturedLine(
  payload: HookPayload,
  runId: string,
  context: CaptureContext,
): CapturedEvent | undefined {
  const { maxFieldBytes, maxLineBytes } = context.limits;
  // Deeper than this, JSON.stringify overflows the stack: cut the depth, keep the event.
  const tooDeep = limitDepth(payload, MAX_EVENT_DEPTH);
  const base = {
    version: CAPTURED_EVENT_VERSION,
    captured_at: new Date().toISOString(),
    run_id: runId,
    seq: context.seq,
    pid: context.pid,
  };
  // Fast path: a payload no bigger than the field limit cannot have a field over it.
  const json = JSON.stringify(payload);
  const envelope = 200 + runId.length;
  const bytes = json.length * 3 <= maxFieldBytes ? json.length * 3 : Buffer.byteLength(json, "utf8");
  if (bytes <= maxFieldBytes && bytes + envelope <= maxLineBytes) {
    return {
      ...base,
      ...(tooDeep.length > 0 ? { truncated: tooDeep } : {}),
      event: payload as CapturedEvent["event"],
    };
  }
  // Cut fields at the limit; while the line is still too long, cut harder.
  for (let limit = maxFieldBytes; limit >= 256; limit = Math.floor(limit / 4)) {
    const cut = truncateLargeFields(payload, limit);
    const truncated = [...tooDeep, ...cut.truncated];
    const line = {
      ...base,
      ...(truncated.length > 0 ? { truncated } : {}),
      event: cut.value as CapturedEvent["event"],
    };
    if (cut.bytes + envelope + JSON.stringify(truncated).length <= maxLineBytes) return line;
  }
  return undefined;
}

function jsonLine(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

/** 32-bit FNV-1a of a string, as 8 hex digits (no crypto module to load). */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, "0");
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
