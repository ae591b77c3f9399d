import { execFile } from "node:child_process";
import {
  chmodSync,
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
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { RunIdError } from "@evals/core";
import { describe, expect, it } from "vitest";
import { createWorktree, listWorktrees, removeWorktree, type WorktreeError } from "../src/index.js";
import { ensureSelfIgnoredFolder } from "../src/test-env.js";
import { defaultTreesDir } from "../src/worktrees.js";
import { leftovers, testRepos, worktreePaths } from "./git-repo.js";

const repo = testRepos();

async function rejection(promise: Promise<unknown>): Promise<WorktreeError> {
  try {
    await promise;
  } catch (error) {
    return error as WorktreeError;
  }
  throw new Error("expected a rejection");
}

describe("createWorktree", () => {
  it("checks out a detached worktree of the ref in its own folder, and removes it", async () => {
    const r = repo({ "a.txt": "one\n" });
    const first = r.git("rev-parse", "HEAD").trim();
    r.write("a.txt", "two\n");
    r.commitAll("second");

    const worktree = await createWorktree(r.root, { ref: first, treesDir: r.treesDir, testId: "wt-1" });
    expect(worktree.path).toBe(join(realpathSync(r.treesDir), "wt-1"));
    expect(worktree.base).toBe(first);
    expect(readFileSync(join(worktree.path, "a.txt"), "utf8")).toBe("one\n");
    const listed = await listWorktrees(r.root);
    expect(listed.map((entry) => entry.path)).toEqual([r.root, worktree.path]);
    expect(listed[1]).toMatchObject({ detached: true, head: first, isMain: false });
    expect(listed[1]?.trial).toMatchObject({ test_id: "wt-1", base: first, ref: first, pid: process.pid });
    expect(listed[0]).toMatchObject({ isMain: true, branch: "refs/heads/main" });

    await worktree.remove();
    await worktree.remove(); // idempotent
    expect(worktreePaths(r)).toEqual([r.root]);
    expect(leftovers(r.treesDir)).toEqual([]);
    expect(r.git("branch", "--list").trim()).toBe("* main"); // no branch was made
  });

  it("accepts branches and tags", async () => {
    const r = repo({ "a.txt": "v1\n" });
    r.git("tag", "v1");
    r.write("a.txt", "v2\n");
    r.commitAll("v2");
    const tagged = await createWorktree(r.root, { ref: "v1", treesDir: r.treesDir });
    const branch = await createWorktree(r.root, { ref: "main", treesDir: r.treesDir });
    expect(readFileSync(join(tagged.path, "a.txt"), "utf8")).toBe("v1\n");
    expect(readFileSync(join(branch.path, "a.txt"), "utf8")).toBe("v2\n");
    await Promise.all([tagged.remove(), branch.remove()]);
    expect(worktreePaths(r)).toEqual([r.root]);
  });

  it("keeps worktrees out of the checkout by default, in a per-repository temp folder", async () => {
    const r = repo();
    const worktree = await createWorktree(r.root);
    try {
      expect(worktree.path.startsWith(realpathSync(defaultTreesDir(r.root)))).toBe(true);
      expect(worktree.path.startsWith(r.root)).toBe(false);
      expect(defaultTreesDir(r.root)).not.toBe(defaultTreesDir(`${r.root}-other`));
    } finally {
      await worktree.remove();
    }
    expect(worktreePaths(r)).toEqual([r.root]);
    expect(leftovers(defaultTreesDir(r.root))).toEqual([]);
    rmSync(defaultTreesDir(r.root), { recursive: true, force: true });
  });

  it("can keep worktrees in .trees/ inside the checkout, which git then ignores", async () => {
    const r = repo();
    const worktree = await createWorktree(r.root, { treesDir: join(r.root, ".trees") });
    expect(r.git("status", "--porcelain", "--untracked-files=all")).toBe("");
    await worktree.remove();
    expect(worktreePaths(r)).toEqual([r.root]);
  });

  it("does not run the repository's git hooks unless asked", async () => {
    const r = repo();
    const marker = join(r.treesDir, "..", "post-checkout-ran");
    const hook = join(r.root, ".git", "hooks", "post-checkout");
    writeFileSync(hook, `#!/bin/sh\necho ran >> "${marker}"\n`);
    chmodSync(hook, 0o755);
    const quiet = await createWorktree(r.root, { treesDir: r.treesDir });
    expect(existsSync(marker)).toBe(false);
    const hooked = await createWorktree(r.root, { treesDir: r.treesDir, gitHooks: true });
    expect(readFileSync(marker, "utf8")).toBe("ran\n");
    await Promise.all([quiet.remove(), hooked.remove()]);
  });
});

describe("bad input: a clear error and nothing left behind", () => {
  it("not a git repository", async () => {
    const folder = realpathSync(mkdtempSync(join(tmpdir(), "evals-wt-notrepo-")));
    const treesDir = join(folder, "trees");
    try {
      const error = await rejection(createWorktree(folder, { treesDir }));
      expect(error.code).toBe("NOT_A_GIT_REPO");
      expect(error.message).toContain(`${folder} is not inside a git repository`);
      expect(existsSync(treesDir)).toBe(false);
      const missing = await rejection(createWorktree(join(folder, "nope"), { treesDir }));
      expect(missing.code).toBe("NOT_A_GIT_REPO");
      expect(missing.message).toContain("does not exist");
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("an unknown ref", async () => {
    const r = repo();
    const before = r.snapshot(["README.md"]);
    for (const ref of ["no-such-branch", "deadbeef", "--orphan", "main^{tree}"]) {
      const error = await rejection(createWorktree(r.root, { ref, treesDir: r.treesDir }));
      expect(error.code).toBe("UNKNOWN_REF");
      expect(error.message).toContain(JSON.stringify(ref));
    }
    expect(worktreePaths(r)).toEqual([r.root]);
    expect(leftovers(r.treesDir)).toEqual([]);
    expect(r.snapshot(["README.md"])).toBe(before);
  });

  it("a repository without commits", async () => {
    const folder = realpathSync(mkdtempSync(join(tmpdir(), "evals-wt-empty-")));
    try {
      const r = repo();
      const empty = join(folder, "empty");
      mkdirSync(empty);
      r.git("-C", empty, "init", "-q");
      const error = await rejection(createWorktree(empty, { treesDir: join(folder, "trees") }));
      expect(error.code).toBe("UNKNOWN_REF");
      expect(error.message).toContain("no commits yet");
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("a dirty main worktree: refused by default, and never touched", async () => {
    const r = repo({ "a.txt": "committed\n", "b.txt": "committed\n" });
    r.write("a.txt", "edited, not committed\n");
    r.write("staged.txt", "staged\n");
    r.git("add", "staged.txt");
    r.write("new.txt", "untracked\n");
    const files = ["a.txt", "b.txt", "staged.txt", "new.txt"];
    const before = r.snapshot(files);

    const error = await rejection(createWorktree(r.root, { treesDir: r.treesDir }));
    expect(error.code).toBe("DIRTY_WORKTREE");
    expect(error.message).toContain("has uncommitted changes");
    expect(error.message).toMatch(/M a\.txt/);
    expect(error.message).toMatch(/A {2}staged\.txt/);
    expect(error.message).toMatch(/\?\? new\.txt/);
    expect(error.message).toContain('dirty: "include"');
    expect(r.snapshot(files)).toBe(before);
    expect(worktreePaths(r)).toEqual([r.root]);
    expect(leftovers(r.treesDir)).toEqual([]);
  });

  it('a dirty main worktree with dirty: "include": the trial sees the checkout as it is on disk', async () => {
    const r = repo({ "a.txt": "committed\n", "gone.txt": "x\n", ".gitignore": "ignored.txt\n" });
    r.write("a.txt", "edited\n");
    r.write("new.txt", "untracked\n");
    r.write("ignored.txt", "secret\n");
    r.git("rm", "-q", "--cached", "gone.txt");
    const files = ["a.txt", "new.txt", "ignored.txt", "gone.txt"];
    const before = r.snapshot(files);
    const head = r.git("rev-parse", "HEAD").trim();

    const worktree = await createWorktree(r.root, { treesDir: r.treesDir, dirty: "include" });
    try {
      expect(worktree.snapshot).toBe(true);
      expect(worktree.base).not.toBe(head);
      expect(r.git("rev-parse", `${worktree.base}^`).trim()).toBe(head);
      expect(readFileSync(join(worktree.path, "a.txt"), "utf8")).toBe("edited\n");
      expect(readFileSync(join(worktree.path, "new.txt"), "utf8")).toBe("untracked\n");
      expect(existsSync(join(worktree.path, "ignored.txt"))).toBe(false);
      // gone.txt is still on disk in the checkout, so the snapshot (the disk as it is) has it.
      expect(existsSync(join(worktree.path, "gone.txt"))).toBe(true);
      expect(r.snapshot(files)).toBe(before);
    } finally {
      await worktree.remove();
    }
    expect(r.snapshot(files)).toBe(before);
  });

  it('a dirty main worktree with dirty: "ignore": the trial runs the commit', async () => {
    const r = repo({ "a.txt": "committed\n" });
    r.write("a.txt", "edited\n");
    const worktree = await createWorktree(r.root, { treesDir: r.treesDir, dirty: "ignore" });
    expect(readFileSync(join(worktree.path, "a.txt"), "utf8")).toBe("committed\n");
    await worktree.remove();
    expect(r.read("a.txt")).toBe("edited\n");
  });

  it("unsafe test ids", async () => {
    const r = repo();
    for (const testId of ["../escape", "/abs", "a/b", "", "..", "a\0b", "x".repeat(200)]) {
      const error = await rejection(createWorktree(r.root, { testId, treesDir: r.treesDir }));
      expect(error).toBeInstanceOf(RunIdError);
      expect(error.message).toMatch(/^Invalid test id /);
    }
    expect(existsSync(r.treesDir)).toBe(false);
    expect(existsSync(join(r.treesDir, "..", "escape"))).toBe(false);
    expect(worktreePaths(r)).toEqual([r.root]);
  });

  it("a test id already in use: refused, and the other folder is left alone", async () => {
    const r = repo();
    const first = await createWorktree(r.root, { testId: "same", treesDir: r.treesDir });
    const error = await rejection(createWorktree(r.root, { testId: "same", treesDir: r.treesDir }));
    expect(error.code).toBe("ID_IN_USE");
    expect(existsSync(join(first.path, "README.md"))).toBe(true);
    expect(worktreePaths(r)).toEqual([r.root, first.path]);
    await first.remove();
  });

  it("a failing checkout leaves no worktree, folder or metadata", async () => {
    const r = repo({ "a.txt": "x\n" });
    // A smudge filter that fails makes the checkout fail half-way, after git registered the worktree.
    r.write(".gitattributes", "*.txt filter=broken\n");
    r.commitAll("attributes");
    r.git("config", "filter.broken.clean", "cat");
    r.git("config", "filter.broken.smudge", "false");
    r.git("config", "filter.broken.required", "true");
    const error = await rejection(createWorktree(r.root, { testId: "broken", treesDir: r.treesDir }));
    expect(error.code).toBe("GIT_FAILED");
    expect(error.message).toMatch(/broken|smudge/);
    expect(worktreePaths(r)).toEqual([r.root]);
    expect(leftovers(r.treesDir)).toEqual([]);
  });
});

describe("several suites on one repository at once", () => {
  it("3 processes running 4 trials each all succeed and leave nothing behind", async () => {
    const r = repo();
    const suite = fileURLToPath(new URL("./fixtures/parallel-suite.mjs", import.meta.url));
    const outputs = await Promise.all(
      ["alpha", "beta", "gamma"].map(
        (label) =>
          new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
            execFile(process.execPath, [suite, r.root, r.treesDir, "4", label], (error, stdout, stderr) =>
              resolve({ code: error ? (error.code as number) : 0, stdout, stderr }),
            );
          }),
      ),
    );
    for (const output of outputs) {
      expect(output.stderr).toBe("");
      expect(JSON.parse(output.stdout)).toEqual({ passed: 4 });
    }
    expect(worktreePaths(r)).toEqual([r.root]);
    expect(leftovers(r.treesDir)).toEqual([]);
    expect(readdirSync(join(r.root, "test-output")).filter((entry) => entry !== ".gitignore")).toHaveLength(
      12,
    );
  });
});

describe("self-ignoring output folders written by several processes at once", () => {
  // Creating test-output/.gitignore and writing its `*` are two steps: another process's dirty check
  // can run in between and see `?? test-output/.gitignore` (the flaky "3 processes" test above).
  it("a trial starts while another process has created test-output/.gitignore but not yet written it", async () => {
    const r = repo();
    mkdirSync(join(r.root, "test-output"));
    writeFileSync(join(r.root, "test-output", ".gitignore"), "");
    const worktree = await createWorktree(r.root, { treesDir: r.treesDir });
    await worktree.remove();
    expect(worktreePaths(r)).toEqual([r.root]);
  });

  it("files of the user's next to an empty .gitignore outside such a folder still count as changes", async () => {
    const r = repo();
    r.write(".gitignore", "");
    r.write("notes/new.txt", "untracked\n");
    const error = await rejection(createWorktree(r.root, { treesDir: r.treesDir }));
    expect(error.code).toBe("DIRTY_WORKTREE");
    expect(error.message).toMatch(/\?\? notes\/new\.txt/);
  });

  it("ensureSelfIgnoredFolder finishes a .gitignore left half-written, after which git ignores the folder", async () => {
    const r = repo();
    const folder = join(r.root, "test-output");
    mkdirSync(folder);
    writeFileSync(join(folder, ".gitignore"), "# Written by");
    writeFileSync(join(folder, "events.jsonl"), "{}\n");
    await ensureSelfIgnoredFolder(folder);
    expect(readFileSync(join(folder, ".gitignore"), "utf8")).toMatch(/^\*$/m);
    expect(r.git("status", "--porcelain", "--untracked-files=all")).toBe("");
  });

  it("ensureSelfIgnoredFolder leaves a user's own .gitignore there as it is", async () => {
    const r = repo();
    const folder = join(r.root, "test-output");
    mkdirSync(folder);
    writeFileSync(join(folder, ".gitignore"), "*.log\n");
    await ensureSelfIgnoredFolder(folder);
    expect(readFileSync(join(folder, ".gitignore"), "utf8")).toBe("*.log\n");
  });
});

describe("removeWorktree", () => {
  it("removes a worktree with uncommitted and untracked changes", async () => {
    const r = repo();
    const worktree = await createWorktree(r.root, { treesDir: r.treesDir });
    writeFileSync(join(worktree.path, "README.md"), "changed\n");
    writeFileSync(join(worktree.path, "new.txt"), "new\n");
    await removeWorktree(r.root, worktree.path);
    expect(worktreePaths(r)).toEqual([r.root]);
    expect(leftovers(r.treesDir)).toEqual([]);
  });

  it("refuses the main worktree and paths that are not worktrees", async () => {
    const r = repo();
    await expect(removeWorktree(r.root, r.root)).rejects.toThrow(/main worktree .* never removed/);
    await expect(removeWorktree(r.root, tmpdir())).rejects.toThrow(/is not a worktree of/);
    expect(existsSync(join(r.root, "README.md"))).toBe(true);
  });
});
