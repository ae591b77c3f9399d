import { appendWholeLine } from "./write.js";

/**
 * The hook's own problems, one JSON object per line in `<run dir>/hook-errors.log`. The hook never
 * reports anything to Claude Code (no stdout, exit 0), so this file is where a run's capture
 * problems can be seen. Plain Node, no zod: the hook executable imports this file; the zod schema
 * (HookErrorEntrySchema) lives with the readers.
 */

export const HOOK_ERROR_VERSION = 1 as const;

export type HookErrorKind =
  /** TEST_RUN_ID unset or unsafe: the run went to a fallback folder. */
  | "run_id"
  /** Stdin was empty, not JSON, or not a hook input object: nothing captured. */
  | "bad_input"
  /** Stdin was larger than EVALS_HOOK_MAX_INPUT_BYTES: nothing captured. */
  | "input_too_large"
  /** Stdin did not close within EVALS_HOOK_STDIN_TIMEOUT_MS; what had arrived was used. */
  | "stdin_timeout"
  /** Even with every field cut, the line stayed over EVALS_HOOK_MAX_LINE_BYTES: nothing captured. */
  | "line_too_large"
  /** A payload without what tool-calls.jsonl needs (tool_name, an object tool_input). */
  | "tool_call_skipped"
  /** Writing a file failed (permissions, full disk, ...). */
  | "write_failed"
  /** Anything else that went wrong inside the hook. */
  | "internal";

export interface HookErrorEntry {
  version: typeof HOOK_ERROR_VERSION;
  /** ISO time. */
  time: string;
  run_id: string;
  pid: number;
  kind: HookErrorKind;
  message: string;
  /** The event being captured, when known. */
  hook_event_name?: string;
  /** The first bytes of a bad input, to see what arrived. */
  input_head?: string;
}

/** Appends one entry; a failure to log is swallowed (the hook must never fail). */
export function logHookError(file: string, entry: Omit<HookErrorEntry, "version" | "time">): void {
  try {
    const line = { version: HOOK_ERROR_VERSION, time: new Date().toISOString(), ...entry };
    appendWholeLine(file, `${JSON.stringify(line)}\n`);
  } catch {
    // Nowhere left to report to; stdout and the exit code belong to Claude Code.
  }
}
