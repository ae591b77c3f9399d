import { execFileSync } from "node:child_process";

export interface GitInfo {
  commit?: string;
  branch?: string;
  dirty?: boolean;
}

/**
 * The commit, branch and dirty state of the git checkout at `cwd`. Falls back to the CI's variables
 * (GITHUB_SHA, CI_COMMIT_SHA, ...) and gives `{}` outside a repository. Never throws, never waits long.
 */
export function gitInfo(cwd: string = process.cwd(), env: NodeJS.ProcessEnv = process.env): GitInfo {
  const info: GitInfo = {};
  const head = git(["rev-parse", "HEAD", "--abbrev-ref", "HEAD"], cwd);
  if (head) {
    const [commit, branch] = head.split("\n");
    if (commit && /^[0-9a-f]{7,64}$/.test(commit)) info.commit = commit;
    if (branch && branch !== "HEAD") info.branch = branch;
    const status = git(["status", "--porcelain", "--untracked-files=no"], cwd);
    if (status !== undefined) info.dirty = status.length > 0;
  }
  info.commit ??= env.GITHUB_SHA ?? env.CI_COMMIT_SHA ?? env.BUILDKITE_COMMIT ?? env.GIT_COMMIT;
  info.branch ??= env.GITHUB_HEAD_REF || env.GITHUB_REF_NAME || env.CI_COMMIT_REF_NAME || undefined;
  return Object.fromEntries(Object.entries(info).filter(([, v]) => v !== undefined)) as GitInfo;
}

function git(args: string[], cwd: string): string | undefined {
  try {
    return execFileSync("git", args, {
      cwd,
      encoding: "utf8",
      timeout: 3000,
      stdio: ["ignore", "pipe", "ignore"],
      env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" },
    }).trim();
  } catch {
    return undefined;
  }
}
