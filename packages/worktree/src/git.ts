import { spawnSync } from "node:child_process";
import { WorktreeError } from "./errors.js";
import { type ProcessResult, runProcess } from "./process.js";

/**
 * Variables that would point git at another repository, index or work tree than the one named by
 * `-C` (they are set, for example, while a git hook runs). Our git commands never inherit them.
 */
const REPOSITORY_VARIABLES = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_COMMON_DIR",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_NAMESPACE",
  "GIT_PREFIX",
];

/**
 * The environment for our git commands: the caller's, without repository overrides, never prompting,
 * and with optional locks off so that `git status` does not rewrite the user's index.
 */
export function gitEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of REPOSITORY_VARIABLES) delete env[name];
  return { ...env, GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0", ...extra };
}

export interface GitOptions {
  env?: NodeJS.ProcessEnv;
  /** Send stdout to this file descriptor (for large diffs). */
  stdoutFd?: number;
  /** Resolve with the result instead of throwing when git exits non-zero. */
  allowFailure?: boolean;
}

/** Runs `git -C <cwd> <args>`; throws a WorktreeError naming the command and git's message on failure. */
export async function git(cwd: string, args: readonly string[], options: GitOptions = {}) {
  const result = await runProcess("git", ["-C", cwd, ...args], {
    env: gitEnv(options.env),
    ...(options.stdoutFd !== undefined ? { stdoutFd: options.stdoutFd } : {}),
  });
  if (result.spawnError) throw gitNotFound(result.spawnError);
  if (result.exitCode !== 0 && !options.allowFailure) throw gitFailed(cwd, args, result);
  return result;
}

/** The trimmed stdout of a git command that must succeed. */
export async function gitText(cwd: string, args: readonly string[], options: GitOptions = {}) {
  return (await git(cwd, args, options)).stdout.trim();
}

/** Synchronous git for clean-up inside signal handlers; never throws, returns whether it succeeded. */
export function gitSync(cwd: string, args: readonly string[]): boolean {
  const result = spawnSync("git", ["-C", cwd, ...args], {
    env: gitEnv(),
    stdio: "ignore",
    timeout: 30_000,
  });
  return result.status === 0;
}

/**
 * A git command run synchronously (for clean-up in signal handlers, where nothing asynchronous runs):
 * its stdout, or a WorktreeError like git()'s.
 */
export function gitOutputSync(
  cwd: string,
  args: readonly string[],
  options: GitOptions = {},
): { stdout: string } {
  const result = spawnSync("git", ["-C", cwd, ...args], {
    env: gitEnv(options.env),
    stdio: ["ignore", options.stdoutFd ?? "pipe", "pipe"],
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
    timeout: 30_000,
  });
  if (result.error && result.status === null && (result.error as NodeJS.ErrnoException).code === "ENOENT") {
    throw gitNotFound(result.error);
  }
  const finished: ProcessResult = {
    exitCode: result.status,
    signal: result.signal,
    stdout: result.stdout ?? "",
    stderr: result.stderr ?? "",
    truncated: false,
    timedOut: false,
    aborted: false,
    durationMs: 0,
  };
  if (result.status !== 0 && !options.allowFailure) throw gitFailed(cwd, args, finished);
  return { stdout: finished.stdout };
}

function gitNotFound(cause: Error): WorktreeError {
  return new WorktreeError(
    "GIT_NOT_FOUND",
    `Could not run git (${cause.message}). @evals/worktree needs git 2.17 or newer on the PATH.`,
    {},
    { cause },
  );
}

/** The GIT_FAILED error for a finished git command: the command, where, and git's message. */
export function gitFailed(cwd: string, args: readonly string[], result: ProcessResult): WorktreeError {
  const message = result.stderr.trim() || result.stdout.trim() || `exit code ${result.exitCode}`;
  return new WorktreeError("GIT_FAILED", `git ${args.join(" ")} failed in ${cwd}: ${message}`, {
    cwd,
    args,
    exitCode: result.exitCode,
    stderr: result.stderr,
  });
}
