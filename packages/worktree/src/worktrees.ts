import { createHash } from "node:crypto";
import { existsSync, mkdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { readdir, rm } from "node:fs/promises";
import { hostname, tmpdir, userInfo } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { assertRunId, newRunId } from "@evals/core";
import { WorktreeError } from "./errors.js";
import { registerExitCleanup } from "./exit-cleanup.js";
import { git, gitSync } from "./git.js";
import { type DirtyFile, listDirtyFiles, resolveCommit, resolveRepo, snapshotWorkingTree } from "./repo.js";
import { ensureSelfIgnoredFolder, isSelfIgnoreFile } from "./self-ignore.js";
import {
  readTrialMetadata,
  TRIAL_METADATA_VERSION,
  type TrialMetadata,
  trialMetadataPath,
} from "./trial-metadata.js";
import { gitWorktreeAdmin } from "./worktree-admin.js";

/**
 * What to do when the checkout has uncommitted changes. A trial checks out a commit, so it would not
 * see them: `error` (default) says so and stops; `ignore` runs the commit anyway; `include` runs a
 * snapshot of the checkout as it is on disk (tracked changes and new files), never touching it.
 */
export type DirtyPolicy = "error" | "ignore" | "include";

export interface CreateWorktreeOptions {
  /** The commit to check out: a branch, tag or sha (default `HEAD`). */
  ref?: string;
  /** The worktree's folder name and run id (default `newRunId(name)`). */
  testId?: string;
  /** Name used in a generated test id (default "trial"). */
  name?: string;
  /** Where worktrees are made (default `defaultTreesDir(repo)`, a folder in the temp dir). */
  treesDir?: string;
  dirty?: DirtyPolicy;
  /** Run the repository's git hooks (post-checkout) when checking out (default false). */
  gitHooks?: boolean;
}

/** A worktree made by createWorktree. `remove()` deletes it (idempotent). */
export interface Worktree {
  /** The checkout it was made from (top folder). */
  repo: string;
  path: string;
  testId: string;
  ref: string;
  /** The commit checked out. */
  base: string;
  /** True when `base` is a snapshot of a dirty checkout (dirty: "include"). */
  snapshot: boolean;
  createdAt: string;
  /** Removes the worktree and its metadata (idempotent). */
  remove(): Promise<void>;
  /** Leaves the worktree on disk for inspection: it is no longer removed on exit or interrupt. */
  keep(): void;
}

/** One entry of `git worktree list`, with our metadata when this package made it. */
export interface WorktreeInfo {
  path: string;
  /** The commit checked out (absent in a bare or empty repository). */
  head?: string;
  /** The branch checked out, e.g. `refs/heads/main` (absent when detached). */
  branch?: string;
  detached: boolean;
  isMain: boolean;
  locked?: string;
  /** Set when git would prune it (its folder is gone). */
  prunable?: string;
  /** Present for trial worktrees made by this package. */
  trial?: TrialMetadata;
}

/** Worktree folders created by this process and not removed yet (the stale clean-up leaves them). */
const liveWorktrees = new Set<string>();

/** True when `path` is a worktree this process created and still uses. */
export function isLiveWorktree(path: string): boolean {
  return liveWorktrees.has(resolve(path));
}

/**
 * The default folder for a repository's trial worktrees: outside the checkout, in the temp dir, one
 * folder per user and repository (`<tmp>/evals-worktrees-<uid>/<repo name>-<hash>`), so test runners,
 * watchers and editors of the project never see them.
 */
export function defaultTreesDir(repoRoot: string): string {
  const root = resolve(repoRoot);
  const hash = createHash("sha256").update(root).digest("hex").slice(0, 12);
  const name =
    basename(root)
      .replace(/[^A-Za-z0-9._-]+/g, "-")
      .slice(0, 40) || "repo";
  return join(tmpdir(), `evals-worktrees-${safeUid()}`, `${name}-${hash}`);
}

function safeUid(): string {
  try {
    return String(userInfo().uid);
  } catch {
    return "user";
  }
}

/**
 * Creates a detached worktree of `repo` at `ref` in `<treesDir>/<testId>`. Fails with a clear
 * WorktreeError (NOT_A_GIT_REPO, UNKNOWN_REF, DIRTY_WORKTREE, ID_IN_USE, GIT_FAILED) and
 * leaves nothing behind; the user's checkout, index and refs are never changed. Until `remove()` is
 * called, an interrupt (SIGINT, SIGTERM, SIGHUP) or exit of the process removes the worktree.
 */
export async function createWorktree(repo: string, options: CreateWorktreeOptions = {}): Promise<Worktree> {
  const testId = options.testId ?? newRunId(options.name ?? "trial");
  assertRunId(testId, "test id");
  const { root, commonDir } = await resolveRepo(repo);
  const ref = options.ref ?? "HEAD";
  let base = await resolveCommit(root, ref);
  let snapshot = false;

  const policy = options.dirty ?? "error";
  if (policy !== "ignore") {
    const dirty = await userChanges(root);
    if (dirty.length > 0 && policy === "error") throw dirtyError(root, ref, dirty);
    if (dirty.length > 0 && policy === "include") {
      const head = await resolveCommit(root, "HEAD");
      if (head !== base) {
        throw new WorktreeError(
          "DIRTY_WORKTREE",
          `dirty: "include" snapshots the checkout ${root}, which is at HEAD (${head.slice(0, 12)}), ` +
            `not at ${JSON.stringify(ref)} (${base.slice(0, 12)}). Use ref "HEAD" or dirty: "ignore".`,
          { repo: root, ref },
        );
      }
      base = await snapshotWorkingTree(root);
      snapshot = true;
    }
  }

  await ensureSelfIgnoredFolder(resolve(options.treesDir ?? defaultTreesDir(root)));
  // git reports real paths; so do we, or a symlinked temp dir (macOS) would not match.
  const treesDir = realpathSync(resolve(options.treesDir ?? defaultTreesDir(root)));
  const path = join(treesDir, testId);
  claimFolder(path, testId);

  const createdAt = new Date().toISOString();
  const metadata: TrialMetadata = {
    version: TRIAL_METADATA_VERSION,
    test_id: testId,
    repo: root,
    path,
    ref,
    base,
    snapshot,
    created_at: createdAt,
    pid: process.pid,
    hostname: hostname(),
  };
  liveWorktrees.add(path);
  const unregister = registerExitCleanup(() => removeWorktreeSync(root, path));
  try {
    writeFileSync(trialMetadataPath(path), `${JSON.stringify(metadata, null, 2)}\n`);
    if (options.gitHooks) {
      // post-checkout runs only when `worktree add` checks out itself: the whole add under the lock.
      await gitWorktreeAdmin(root, commonDir, ["worktree", "add", "--detach", path, base], {
        beforeRetry: () => mkdirSync(path, { recursive: true }),
      });
    } else {
      // Register the worktree under the lock (fast), then check its files out in parallel with others.
      const noHooks = ["-c", `core.hooksPath=${emptyHooksPath()}`];
      await gitWorktreeAdmin(
        root,
        commonDir,
        [...noHooks, "worktree", "add", "--detach", "--no-checkout", path, base],
        {
          beforeRetry: () => mkdirSync(path, { recursive: true }),
        },
      );
      await git(path, [...noHooks, "reset", "--hard", "--quiet"]);
    }
  } catch (error) {
    await removeOurWorktree(root, commonDir, path);
    unregister();
    throw error;
  }

  let removed: Promise<void> | undefined;
  return {
    repo: root,
    path,
    testId,
    ref,
    base,
    snapshot,
    createdAt,
    remove() {
      removed ??= removeOurWorktree(root, commonDir, path).finally(unregister);
      return removed;
    },
    keep() {
      unregister();
      liveWorktrees.delete(path);
    },
  };
}

/**
 * The checkout's uncommitted changes, less the files in self-ignoring folders of ours (test-output/,
 * a trees folder) that `git status` listed while another process was still writing the folder's
 * `.gitignore`: run outputs are never the user's changes.
 */
async function userChanges(root: string): Promise<DirtyFile[]> {
  const inSelfIgnoredFolder = (path: string) => {
    for (let dir = dirname(path); dir !== "." && dir !== "/"; dir = dirname(dir))
      if (isSelfIgnoreFile(join(root, dir, ".gitignore"))) return true;
    return false;
  };
  return (await listDirtyFiles(root)).filter(
    (file) => !(file.status === "??" && inSelfIgnoredFolder(file.path)),
  );
}

/** Takes `<treesDir>/<testId>` by creating it (empty), so two trials can never share a folder. */
function claimFolder(path: string, testId: string): void {
  try {
    mkdirSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") {
      throw new WorktreeError(
        "ID_IN_USE",
        `Test id ${JSON.stringify(testId)} is already in use: ${path} exists. Use a new id (newRunId from @evals/core).`,
        { path, testId },
      );
    }
    throw error;
  }
}

/** A hooks folder that holds no hooks: git finds no post-checkout to run. */
function emptyHooksPath(): string {
  return process.platform === "win32" ? "NUL" : "/dev/null";
}

function dirtyError(root: string, ref: string, dirty: { status: string; path: string }[]): WorktreeError {
  const shown = dirty.slice(0, 10).map((file) => `  ${file.status} ${file.path}`);
  if (dirty.length > 10) shown.push(`  ... and ${dirty.length - 10} more`);
  return new WorktreeError(
    "DIRTY_WORKTREE",
    `${root} has uncommitted changes, which a trial at ${JSON.stringify(ref)} would not see:\n${shown.join("\n")}\n` +
      `Nothing was changed. Commit them, or pass dirty: "include" to run a snapshot of the checkout as it is, ` +
      `or dirty: "ignore" to run the commit without them.`,
    { repo: root, ref, files: dirty },
  );
}

/**
 * Removes one of our worktrees: its files (outside the lock, the slow part), then
 * `git worktree remove --force` and `git worktree prune`, then its metadata.
 */
async function removeOurWorktree(root: string, commonDir: string, path: string): Promise<void> {
  try {
    await emptyFolderExceptGitLink(path);
    const removed = await gitWorktreeAdmin(
      root,
      commonDir,
      ["worktree", "remove", "--force", "--force", path],
      {
        allowFailure: true,
      },
    );
    if (existsSync(path)) await rm(path, { recursive: true, force: true });
    await gitWorktreeAdmin(root, commonDir, ["worktree", "prune"], { allowFailure: true });
    // An add killed half-way leaves a locked entry that prune keeps: unlock it, then prune it.
    if (removed.exitCode !== 0 && (await isListed(root, path))) {
      await gitWorktreeAdmin(root, commonDir, ["worktree", "unlock", path], { allowFailure: true });
      await gitWorktreeAdmin(root, commonDir, ["worktree", "prune"], { allowFailure: true });
    }
  } finally {
    rmSync(trialMetadataPath(path), { force: true });
    liveWorktrees.delete(path);
  }
}

/** Deletes a worktree's files but its `.git` link, so that git's own removal has little left to do. */
async function emptyFolderExceptGitLink(path: string): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(path);
  } catch {
    return;
  }
  await Promise.all(
    entries
      .filter((entry) => entry !== ".git")
      .map((entry) => rm(join(path, entry), { recursive: true, force: true })),
  );
}

/** The same, synchronously, for signal handlers and process exit. */
function removeWorktreeSync(root: string, path: string): void {
  const removed = gitSync(root, ["worktree", "remove", "--force", "--force", path]);
  rmSync(path, { recursive: true, force: true });
  if (!removed) gitSync(root, ["worktree", "unlock", path]);
  gitSync(root, ["worktree", "prune"]);
  rmSync(trialMetadataPath(path), { force: true });
  liveWorktrees.delete(path);
}

async function isListed(root: string, path: string): Promise<boolean> {
  return (await listWorktrees(root)).some((worktree) => worktree.path === path);
}

/**
 * Removes a linked worktree of `repo` (`git worktree remove --force`, then `prune`), and its metadata
 * when this package made it. Refuses the main worktree and paths that are not worktrees of `repo`.
 */
export async function removeWorktree(repo: string, worktreePath: string): Promise<void> {
  const { root, commonDir } = await resolveRepo(repo);
  const path = resolve(worktreePath);
  const entry = (await listWorktrees(root)).find((worktree) => worktree.path === path);
  if (!entry || entry.isMain) {
    throw new WorktreeError(
      "INVALID_PATH",
      entry
        ? `${path} is the main worktree of ${root}: it is never removed.`
        : `${path} is not a worktree of ${root} (see listWorktrees).`,
      { repo: root, path },
    );
  }
  await removeOurWorktree(root, commonDir, path);
}

/** Every worktree of the repository (the main one first), with trial metadata where we made it. */
export async function listWorktrees(repo: string): Promise<WorktreeInfo[]> {
  const { root, commonDir } = await resolveRepo(repo);
  const out = (await gitWorktreeAdmin(root, commonDir, ["worktree", "list", "--porcelain"])).stdout;
  const worktrees: WorktreeInfo[] = [];
  for (const block of out.split(/\n\n+/)) {
    const lines = block.split("\n").filter(Boolean);
    const path = lines[0]?.startsWith("worktree ") ? lines[0].slice("worktree ".length) : undefined;
    if (path === undefined) continue;
    const info: WorktreeInfo = { path, detached: false, isMain: worktrees.length === 0 };
    for (const line of lines.slice(1)) {
      const [key, ...rest] = line.split(" ");
      const value = rest.join(" ");
      if (key === "HEAD") info.head = value;
      else if (key === "branch") info.branch = value;
      else if (key === "detached") info.detached = true;
      else if (key === "locked") info.locked = value || "locked";
      else if (key === "prunable") info.prunable = value || "prunable";
    }
    const trial = info.isMain ? undefined : readTrialMetadata(path);
    if (trial) info.trial = trial;
    worktrees.push(info);
  }
  return worktrees;
}

/** `git worktree prune`: forgets worktrees whose folders are gone. */
export async function pruneWorktrees(repo: string): Promise<void> {
  const { root, commonDir } = await resolveRepo(repo);
  await gitWorktreeAdmin(root, commonDir, ["worktree", "prune"]);
}
