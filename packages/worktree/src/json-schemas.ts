import { formatJsonSchema } from "@evals/core";
import { OutcomeSchema } from "./outcome.js";
import { TrialMetadataSchema } from "./trial-metadata.js";

/** The file formats of @evals/worktree, by name, as zod schemas. */
export const worktreeFileFormats = {
  outcome: OutcomeSchema,
  "trial-metadata": TrialMetadataSchema,
} as const;
export type WorktreeFileFormatName = keyof typeof worktreeFileFormats;

/** A JSON Schema (draft 2020-12) for one of the file formats, generated from its zod schema. */
export function worktreeJsonSchema(name: WorktreeFileFormatName): Record<string, unknown> {
  return formatJsonSchema("worktree", name, worktreeFileFormats[name]);
}
