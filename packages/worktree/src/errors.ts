/** What went wrong, as a code a caller can branch on. */
export type WorktreeErrorCode =
  | "NOT_A_GIT_REPO"
  | "UNKNOWN_REF"
  | "DIRTY_WORKTREE"
  | "INVALID_PATH"
  | "INVALID_FILE"
  | "INVALID_FIXTURE"
  | "ID_IN_USE"
  | "GIT_NOT_FOUND"
  | "GIT_FAILED"
  | "TRIAL_TIMEOUT"
  | "TRIAL_INTERRUPTED";

/**
 * The one error type of @evals/worktree. The message says what failed, where and what to do; `code`
 * says which kind of failure it is; `details` carries the facts (paths, refs, files) for tooling.
 */
export class WorktreeError extends Error {
  override readonly name = "WorktreeError";
  constructor(
    readonly code: WorktreeErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isWorktreeError(error: unknown, code?: WorktreeErrorCode): error is WorktreeError {
  return error instanceof WorktreeError && (code === undefined || error.code === code);
}
