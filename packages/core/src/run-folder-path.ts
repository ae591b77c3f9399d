import { isAbsolute, join, resolve } from "node:path";
import { RUNS_FOLDER } from "./run-folder-files.js";
import { assertRunId } from "./run-id.js";

/** Where run folders go: `<output root>/test-output/<run id>/`. Plain Node (the capture hook uses it). */

/** The environment variables that choose the output root. */
export type OutputEnv = Partial<Record<"EVALS_OUTPUT_DIR" | "CLAUDE_PROJECT_DIR", string | undefined>>;

/**
 * The output root: EVALS_OUTPUT_DIR, else CLAUDE_PROJECT_DIR, else the cwd (relative values are
 * taken against the cwd).
 */
export function outputRoot(env: OutputEnv = process.env, cwd: string = process.cwd()): string {
  const chosen = env.EVALS_OUTPUT_DIR || env.CLAUDE_PROJECT_DIR || cwd;
  return isAbsolute(chosen) ? chosen : resolve(cwd, chosen);
}

/**
 * The run folder of `runId`: `<root>/test-output/<runId>` (root defaults to outputRoot()). Throws a
 * RunIdError, before anything touches the disk, when `runId` could name anything but a run folder.
 */
export function runFolderPath(runId: string, root?: string): string {
  assertRunId(runId);
  return join(root ? resolve(root) : outputRoot(), RUNS_FOLDER, runId);
}
