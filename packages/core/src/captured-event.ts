import { z } from "zod";
import { CAPTURED_EVENT_VERSION, RAW_CAPTURED_EVENT_VERSION } from "./format-version.js";
import { HookInputSchema } from "./hook-input.js";

/**
 * One line of `events.jsonl`: the hook input exactly as Claude Code sent it, plus what the
 * capture hook knew when it wrote the line.
 */
export const CapturedEventSchema = z.object({
  /**
   * 1: written by the Node hook (input validated, large fields cut). 2: appended raw by the shell
   * hook (read it with readCapturedEvents, which validates it and cuts its depth).
   */
  version: z.union([z.literal(CAPTURED_EVENT_VERSION), z.literal(RAW_CAPTURED_EVENT_VERSION)]),
  /** ISO time at which the hook wrote the line. */
  captured_at: z.string(),
  /** The run (TEST_RUN_ID) this line belongs to. */
  run_id: z.string(),
  /**
   * Orders lines of one run. Hook processes run concurrently, so this is monotonic per run but
   * may have gaps; sort by it, never count with it.
   */
  seq: z.number().int().nonnegative(),
  /** Process id of the hook that wrote the line (for diagnosing interleaving). */
  pid: z.number().int().optional(),
  /** Fields cut to keep the line under the size limit, as JSON paths. */
  truncated: z.array(z.string()).optional(),
  event: HookInputSchema,
});
export type CapturedEvent = z.infer<typeof CapturedEventSchema>;

/**
 * One line of `tool-calls.jsonl` (the seeds' ToolCallEntry): the compact view of PreToolUse,
 * PostToolUse and PostToolUseFailure that quick scripts and the seeds' helpers read.
 */
export const ToolCallEntrySchema = z.object({
  timestamp: z.string(),
  phase: z.enum(["pre", "post"]),
  tool_name: z.string(),
  tool_input: z.record(z.string(), z.unknown()),
  tool_use_id: z.string().optional(),
  session_id: z.string().optional(),
  cwd: z.string().optional(),
  agent_id: z.string().optional(),
  tool_output: z.unknown().optional(),
  error: z.string().optional(),
});
export type ToolCallEntry = z.infer<typeof ToolCallEntrySchema>;
