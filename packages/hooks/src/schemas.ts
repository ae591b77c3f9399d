import { formatJsonSchema } from "@evals/core";
import { z } from "zod";
import { HOOK_ERROR_VERSION, type HookErrorEntry } from "./hook-errors.js";

/**
 * One line of `hook-errors.log`: a problem the capture hook had (it cannot report to Claude Code,
 * so it reports here).
 */
export const HookErrorEntrySchema = z.object({
  version: z.literal(HOOK_ERROR_VERSION),
  /** ISO time. */
  time: z.string(),
  /** The run folder the hook used (a fallback id when TEST_RUN_ID was refused). */
  run_id: z.string(),
  pid: z.number().int(),
  kind: z.enum([
    "run_id",
    "bad_input",
    "input_too_large",
    "stdin_timeout",
    "line_too_large",
    "tool_call_skipped",
    "write_failed",
    "internal",
  ]),
  message: z.string(),
  hook_event_name: z.string().optional(),
  /** The first bytes of a bad input. */
  input_head: z.string().optional(),
}) satisfies z.ZodType<HookErrorEntry>;

/** The JSON Schemas of this package's own file formats (shipped as `@evals/hooks/schemas/<name>.json`). */
export const hookFileFormats = {
  "hook-error": HookErrorEntrySchema,
} as const;

export type HookFileFormatName = keyof typeof hookFileFormats;

/** A JSON Schema (draft 2020-12) for one of this package's file formats. */
export function hookJsonSchemaFor(name: HookFileFormatName): Record<string, unknown> {
  return formatJsonSchema("hooks", name, hookFileFormats[name]);
}
