import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach } from "vitest";

// Tests never depend on the machine's git config: no system or global config, identity from env.
const emptyConfig = join(mkdtempSync(join(tmpdir(), "evals-wt-gitconfig-")), "config");
writeFileSync(emptyConfig, "");
process.env.GIT_CONFIG_NOSYSTEM = "1";
process.env.GIT_CONFIG_GLOBAL = emptyConfig;
export const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: "Evals Tests",
  GIT_AUTHOR_EMAIL: "tests@evals.invalid",
  GIT_COMMITTER_NAME: "Evals Tests",
  GIT_COMMITTER_EMAIL: "tests@evals.invalid",
};

export interface TestRepo {
  /** The checkout (real path). */
  root: string;
  /** A trees folder of its own, outside the checkout. */
  treesDir: string;
  git(...args: string[]): string;
  write(path: string, content: string | Buffer): void;
  read(path: string): string;
  commitAll(message: string): string;
  /** A fingerprint of what the user has: status, index bytes, HEAD and the given files' contents. */
  snapshot(files: string[]): string;
  cleanup(): void;
}

/** A real git repository in a temp folder with the given files committed on `main`. */
export function makeRepo(
  files: Record<string, string | Buffer> = { "README.md": "# test repo\n" },
): TestRepo {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "evals-wt-test-")));
  const root = join(base, "repo");
  const treesDir = join(base, "trees");
  mkdirSync(root);
  const git = (...args: string[]) =>
    execFileSync("git", ["-C", root, ...args], {
      env: { ...process.env, ...GIT_IDENTITY, GIT_OPTIONAL_LOCKS: "0" },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
  const write = (path: string, content: string | Buffer) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  };
  git("init", "-q", "-b", "main");
  for (const [path, content] of Object.entries(files)) write(path, content);
  const commitAll = (message: string) => {
    git("add", "--all");
    git("commit", "-q", "-m", message);
    return git("rev-parse", "HEAD").trim();
  };
  commitAll("initial");
  return {
    root,
    treesDir,
    git,
    write,
    read: (path) => readFileSync(join(root, path), "utf8"),
    commitAll,
    snapshot: (paths) =>
      JSON.stringify({
        status: git("status", "--porcelain=v1", "--untracked-files=all"),
        index: readFileSync(join(root, ".git", "index")).toString("base64"),
        head: git("rev-parse", "HEAD"),
        refs: git("for-each-ref"),
        files: paths.map((path) => readFileSync(join(root, path)).toString("base64")),
      }),
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
}

/** The paths in `git worktree list`, main first. */
export function worktreePaths(repo: TestRepo): string[] {
  return repo
    .git("worktree", "list", "--porcelain")
    .split("\n")
    .filter((line) => line.startsWith("worktree "))
    .map((line) => line.slice("worktree ".length));
}

/** makeRepo for a test file: every repository it made is removed after each test. */
export function testRepos(): (files?: Record<string, string>) => TestRepo {
  const made: TestRepo[] = [];
  afterEach(() => {
    for (const repo of made.splice(0)) repo.cleanup();
  });
  return (files) => {
    const repo = makeRepo(files);
    made.push(repo);
    return repo;
  };
}

/** What is left in a trees folder besides its .gitignore. */
export function leftovers(treesDir: string): string[] {
  return existsSync(treesDir) ? readdirSync(treesDir).filter((entry) => entry !== ".gitignore") : [];
}

/** Whether a process still runs (a zombie waiting for a reaper counts as gone). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return process.platform !== "linux";
  }
}
