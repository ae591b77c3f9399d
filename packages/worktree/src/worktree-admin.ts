import { type GitOptions, git, gitFailed } from "./git.js";
import type { ProcessResult } from "./process.js";

/**
 * git's worktree bookkeeping (`.git/worktrees/<id>/`) is not safe under concurrency: `worktree add`
 * writes an entry's files one by one while other git commands read every entry, and a reader that
 * finds a half-written entry dies ("failed to read .git/worktrees/<id>/commondir"). So within this
 * process, the commands that write or read those entries (add, remove, prune, list) run one at a time
 * per repository; the slow parts (checking out files, deleting them) run outside, in parallel. Against
 * other processes working on the same repository, a command that failed on such a race is retried.
 */
const queues = new Map<string, Promise<unknown>>();

/** Runs `fn` when no other bookkeeping command of the same repository (its common git dir) runs. */
export async function withWorktreeAdminLock<T>(commonDir: string, fn: () => Promise<T>): Promise<T> {
  const previous = queues.get(commonDir) ?? Promise.resolve();
  const run = previous.then(fn, fn);
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  queues.set(commonDir, settled);
  try {
    return await run;
  } finally {
    if (queues.get(commonDir) === settled) queues.delete(commonDir);
  }
}

/**
 * Whether a git command failed because another worktree's entry was read while half-written or
 * half-deleted: a file of the entry missing ("failed to read .git/worktrees/<id>/commondir"), or the
 * whole entry gone between listing and reading it ("Invalid path '.git/worktrees/<id>': No such file
 * or directory").
 */
export function isWorktreeEntryRace(stderr: string): boolean {
  return (
    /worktrees\/[^/\s]+\/(commondir|gitdir|HEAD|locked|index)\b/.test(stderr) ||
    /worktrees\/[^/\s']+'?: No such file or directory/.test(stderr)
  );
}
const ATTEMPTS = 4;

/**
 * A `git worktree ...` command under the repository's lock, retried (with a short random pause) when
 * it failed because another process was changing a worktree entry at the same moment.
 */
export async function gitWorktreeAdmin(
  root: string,
  commonDir: string,
  args: readonly string[],
  options: GitOptions & { beforeRetry?: () => void } = {},
): Promise<ProcessResult> {
  for (let attempt = 1; ; attempt++) {
    const result = await withWorktreeAdminLock(commonDir, () =>
      git(root, args, { ...options, allowFailure: true }),
    );
    const raced = result.exitCode !== 0 && isWorktreeEntryRace(result.stderr);
    if (!raced || attempt === ATTEMPTS) {
      if (result.exitCode !== 0 && !options.allowFailure) throw gitFailed(root, args, result);
      return result;
    }
    options.beforeRetry?.();
    await new Promise((resolve) => setTimeout(resolve, 25 + Math.random() * 100 * attempt));
  }
}
