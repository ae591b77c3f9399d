import { isAbsolute, join, resolve } from "node:path";
import { RUN_FOLDER_FILES, RUNS_FOLDER } from "@evals/core";

/**
 * Where captured runs live: `<root>/test-output/<run id>/`. Shared by the hook executable and the
 * readers (plain Node, no zod).
 */

// The names are @evals/core's run folder layout (RUNS_FOLDER, RUN_FOLDER_FILES), kept under these names.
export const OUTPUT_FOLDER = RUNS_FOLDER;
export const EVENTS_FILE = RUN_FOLDER_FILES.events;
export const TOOL_CALLS_FILE = RUN_FOLDER_FILES.toolCalls;
export const HOOK_ERRORS_FILE = RUN_FOLDER_FILES.hookErrors;
/**
 * Space kept free for hook-errors.log while a run is captured: on a full disk the hook deletes it
 * and so can still log what it could not write. Removed at Stop and SessionEnd (made again by the next event).
 */
export const RESERVE_FILE = ".hook-reserve";
export const RESERVE_BYTES = 16 * 1024;

/** The longest run id used as a folder name. */
export const MAX_RUN_ID_LENGTH = 128;

const SAFE_RUN_ID = /^[A-Za-z0-9._-]+$/;

/**
 * Whether `id` may name a run folder: 1 to 128 letters, digits, `.`, `_` or `-`, no `..`, and not
 * `.` alone. Such an id can only ever name a direct child of `<root>/test-output`.
 */
export function isSafeRunId(id: unknown): id is string {
  return (
    typeof id === "string" &&
    id.length > 0 &&
    id.length <= MAX_RUN_ID_LENGTH &&
    SAFE_RUN_ID.test(id) &&
    id !== "." &&
    !id.includes("..")
  );
}

/** Why a run id is refused ("is empty", ...), or undefined when it is safe. */
export function runIdProblem(id: string | undefined): string | undefined {
  if (id === undefined) return "is not set";
  if (id === "") return "is empty";
  if (id.length > MAX_RUN_ID_LENGTH) return `is longer than ${MAX_RUN_ID_LENGTH} characters`;
  if (!SAFE_RUN_ID.test(id)) return "may only contain letters, digits, '.', '_' and '-'";
  if (id === "." || id.includes("..")) return "may not be '.' or contain '..'";
  return undefined;
}

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

/** `<root>/test-output/<runId>`. Throws when `runId` could name anything but a run folder. */
export function runDirFor(runId: string, options: { root?: string } = {}): string {
  const problem = runIdProblem(runId);
  if (problem) throw new Error(`Invalid run id ${JSON.stringify(runId)}: it ${problem}.`);
  return join(options.root ? resolve(options.root) : outputRoot(), OUTPUT_FOLDER, runId);
}
