import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { WorktreeError } from "./errors.js";
import { git, gitText } from "./git.js";

/** A checkout we work from: its top folder and the repository's shared .git folder. */
export interface RepoLocation {
  /** The top folder of the checkout that contains the given path (`git rev-parse --show-toplevel`). */
  root: string;
  /** The repository's common git folder (shared by all its worktrees), absolute. */
  commonDir: string;
}

/** Finds the checkout that holds `path`; a clear NOT_A_GIT_REPO error when there is none. */
export async function resolveRepo(path: string): Promise<RepoLocation> {
  const absolute = resolve(path);
  if (!existsSync(absolute) || !statSync(absolute).isDirectory()) {
    throw new WorktreeError("NOT_A_GIT_REPO", `${absolute} does not exist or is not a folder.`, {
      path: absolute,
    });
  }
  const result = await git(
    absolute,
    ["rev-parse", "--is-bare-repository", "--show-toplevel", "--git-common-dir"],
    {
      allowFailure: true,
    },
  );
  const lines = result.stdout.split("\n").filter(Boolean);
  if (result.exitCode === 0 && lines[0] === "true") {
    throw new WorktreeError(
      "NOT_A_GIT_REPO",
      `${absolute} is a bare repository: give the path of a checkout (a folder with a working tree).`,
      { path: absolute },
    );
  }
  if (result.exitCode !== 0 || lines.length < 3) {
    throw new WorktreeError(
      "NOT_A_GIT_REPO",
      `${absolute} is not inside a git repository (${result.stderr.trim() || "git rev-parse failed"}). ` +
        "Trials check out a commit of a repository: run `git init` and commit, or pass the repository's path.",
      { path: absolute },
    );
  }
  return { root: lines[1]!, commonDir: resolve(absolute, lines[2]!) };
}

/** The commit sha that `ref` names; a clear UNKNOWN_REF error when it names none. */
export async function resolveCommit(root: string, ref: string): Promise<string> {
  if (ref.length === 0 || ref.startsWith("-") || /[\0\n\r]/.test(ref)) {
    throw new WorktreeError("UNKNOWN_REF", `Invalid ref ${JSON.stringify(ref)} for ${root}.`, {
      ref,
      repo: root,
    });
  }
  const result = await git(root, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], {
    allowFailure: true,
  });
  if (result.exitCode === 0) return result.stdout.trim();
  const hasCommits = (await git(root, ["rev-parse", "--verify", "--quiet", "HEAD"], { allowFailure: true }))
    .exitCode;
  const hint =
    hasCommits === 0
      ? "Use a branch, a tag or a commit sha of this repository (`git branch -a` lists branches)."
      : "The repository has no commits yet: commit something first.";
  throw new WorktreeError(
    "UNKNOWN_REF",
    `Unknown ref ${JSON.stringify(ref)} in ${root}: it names no commit. ${hint}`,
    {
      ref,
      repo: root,
    },
  );
}

/** One entry of `git status --porcelain`: the two-letter status and the path. */
export interface DirtyFile {
  status: string;
  path: string;
}

/**
 * The uncommitted changes of a checkout: modified, staged, deleted and untracked (not ignored) files.
 * Read-only: optional locks are off, so git does not even refresh the index.
 */
export async function listDirtyFiles(root: string): Promise<DirtyFile[]> {
  const out = (await git(root, ["status", "--porcelain=v1", "-z", "--untracked-files=all"])).stdout;
  const fields = out.split("\0");
  const files: DirtyFile[] = [];
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!;
    if (field.length < 4) continue;
    const status = field.slice(0, 2);
    files.push({ status, path: field.slice(3) });
    // A rename or copy is followed by its source path.
    if (status.includes("R") || status.includes("C")) i++;
  }
  return files;
}

/** The identity of snapshot commits, so they never depend on the user's git config. */
const SNAPSHOT_IDENTITY = {
  GIT_AUTHOR_NAME: "evals",
  GIT_AUTHOR_EMAIL: "evals@localhost",
  GIT_COMMITTER_NAME: "evals",
  GIT_COMMITTER_EMAIL: "evals@localhost",
};

/**
 * A commit holding the checkout exactly as it is on disk (tracked changes and untracked, not ignored
 * files), on top of HEAD, made with a temporary index: the user's files, index and refs stay as they
 * are. Only new objects are written to the object store (unreferenced; git's gc drops them in time).
 */
export async function snapshotWorkingTree(root: string): Promise<string> {
  const scratch = mkdtempSync(join(tmpdir(), "evals-snapshot-"));
  try {
    const index = join(scratch, "index");
    const userIndex = resolve(root, await gitText(root, ["rev-parse", "--git-path", "index"]));
    // Starting from a copy of the user's index keeps git's stat cache: only changed files are hashed.
    if (existsSync(userIndex)) copyFileSync(userIndex, index);
    const env = { GIT_INDEX_FILE: index, ...SNAPSHOT_IDENTITY };
    await git(root, ["add", "--all", "--", "."], { env });
    const tree = await gitText(root, ["write-tree"], { env });
    return await gitText(
      root,
      ["commit-tree", tree, "-p", "HEAD", "-m", "evals: snapshot of the working tree"],
      {
        env,
      },
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
