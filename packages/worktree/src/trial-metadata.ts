import { readFileSync } from "node:fs";
import { z } from "zod";

export const TRIAL_METADATA_VERSION = 1 as const;

/**
 * `<worktree>.trial.json`, beside each worktree this package creates: what it is, who made it and
 * when. listWorktrees reports it; the stale clean-up judges age and liveness by it.
 */
export const TrialMetadataSchema = z.object({
  version: z.literal(TRIAL_METADATA_VERSION),
  test_id: z.string(),
  /** The checkout the worktree was made from. */
  repo: z.string(),
  /** The worktree folder. */
  path: z.string(),
  /** The ref as given, and the commit it resolved to (a snapshot commit with dirty: "include"). */
  ref: z.string(),
  base: z.string(),
  snapshot: z.boolean(),
  created_at: z.string(),
  /** The process that made it, to tell a live trial from a stale one. */
  pid: z.number().int(),
  hostname: z.string(),
});
export type TrialMetadata = z.infer<typeof TrialMetadataSchema>;

/** The metadata file of a worktree folder. */
export function trialMetadataPath(worktreePath: string): string {
  return `${worktreePath}.trial.json`;
}

/** The worktree's metadata, or undefined when it has none (not ours) or it cannot be read. */
export function readTrialMetadata(worktreePath: string): TrialMetadata | undefined {
  try {
    const parsed = TrialMetadataSchema.safeParse(
      JSON.parse(readFileSync(trialMetadataPath(worktreePath), "utf8")),
    );
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
