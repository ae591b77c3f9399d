import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  captureOutcome,
  createWorktree,
  OutcomeSchema,
  readOutcome,
  readOutcomePatch,
  type Worktree,
} from "../src/index.js";
import { makeRepo, type TestRepo } from "./git-repo.js";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(
  files: Record<string, string | Buffer>,
): Promise<{ r: TestRepo; worktree: Worktree; out: string }> {
  const r = makeRepo(files);
  cleanups.push(() => r.cleanup());
  const worktree = await createWorktree(r.root, { treesDir: r.treesDir });
  cleanups.push(() => worktree.remove());
  const out = join(r.treesDir, "..", "out");
  return { r, worktree, out };
}

function gitIn(r: TestRepo, cwd: string, ...args: string[]): string {
  return r.git("-C", cwd, ...args);
}

describe("captureOutcome", () => {
  it("saves edits, new files, deletions, renames and binary files as a patch and a file list", async () => {
    const { r, worktree, out } = await setup({
      "src/app.js": "line 1\nline 2\nline 3\n",
      "delete-me.txt": "bye\n",
      "old-name.txt": "the same content, long enough to be seen as a rename\n",
      "logo.bin": Buffer.from([0, 1, 2, 3, 255]),
      ".gitignore": "node_modules/\n",
    });
    const w = worktree.path;
    writeFileSync(join(w, "src/app.js"), "line 1\nline 2 changed\nline 3\nline 4\n");
    writeFileSync(join(w, "src/new.js"), "export const x = 1;\n");
    unlinkSync(join(w, "delete-me.txt"));
    mkdirSync(join(w, "docs"));
    writeFileSync(join(w, "docs/new-name.txt"), readFileSync(join(w, "old-name.txt")));
    unlinkSync(join(w, "old-name.txt"));
    writeFileSync(join(w, "logo.bin"), Buffer.from([0, 9, 9, 9, 255, 0]));
    mkdirSync(join(w, "node_modules"));
    writeFileSync(join(w, "node_modules/ignored.js"), "ignored\n");
    const indexBefore = gitIn(r, w, "ls-files", "--stage");

    const outcome = await captureOutcome(w, { base: worktree.base, outputDir: out, testId: "t1" });
    expect(OutcomeSchema.parse(outcome)).toEqual(outcome);
    expect(outcome).toMatchObject({
      version: 1,
      test_id: "t1",
      worktree: w,
      base: worktree.base,
      head: worktree.base,
    });
    const byPath = Object.fromEntries(outcome.files.map((file) => [file.path, file]));
    expect(Object.keys(byPath).sort()).toEqual(
      ["delete-me.txt", "docs/new-name.txt", "logo.bin", "src/app.js", "src/new.js"].sort(),
    );
    expect(byPath["src/app.js"]).toMatchObject({
      status: "modified",
      additions: 2,
      deletions: 1,
      binary: false,
    });
    expect(byPath["src/new.js"]).toMatchObject({ status: "added", additions: 1, deletions: 0 });
    expect(byPath["delete-me.txt"]).toMatchObject({ status: "deleted", additions: 0, deletions: 1 });
    expect(byPath["docs/new-name.txt"]).toMatchObject({ status: "renamed", old_path: "old-name.txt" });
    expect(byPath["logo.bin"]).toMatchObject({ status: "modified", binary: true, additions: null });
    expect(outcome.totals).toEqual({ files: 5, additions: 3, deletions: 2 });

    // The agent's worktree and its index are left as they were.
    expect(gitIn(r, w, "ls-files", "--stage")).toBe(indexBefore);
    expect(gitIn(r, w, "status", "--porcelain")).toContain("?? src/new.js");

    // The patch, applied to the base commit in a fresh worktree, reproduces the agent's tree exactly.
    expect(readOutcome(out)).toEqual(outcome);
    const patch = readOutcomePatch(out);
    expect(patch).toContain("GIT binary patch");
    const replay = await createWorktree(r.root, { ref: worktree.base, treesDir: r.treesDir });
    cleanups.push(() => replay.remove());
    gitIn(r, replay.path, "apply", "--index", "--binary", join(out, outcome.patch_file));
    const treeOf = (cwd: string) => {
      const index = join(out, `index-${cwd === w ? "a" : "b"}`);
      const env = { ...process.env, GIT_INDEX_FILE: index };
      execFileSync("git", ["-C", cwd, "read-tree", worktree.base], { env });
      execFileSync("git", ["-C", cwd, "add", "--all"], { env });
      return execFileSync("git", ["-C", cwd, "write-tree"], { env, encoding: "utf8" }).trim();
    };
    expect(treeOf(replay.path)).toBe(treeOf(w));
  });

  it("includes what the agent committed (HEAD moved) and reports both commits", async () => {
    const { r, worktree, out } = await setup({ "a.txt": "1\n" });
    const w = worktree.path;
    writeFileSync(join(w, "a.txt"), "2\n");
    gitIn(r, w, "commit", "-q", "-am", "agent commit");
    writeFileSync(join(w, "b.txt"), "after the commit\n");
    const outcome = await captureOutcome(w, { base: worktree.base, outputDir: out });
    expect(outcome.head).not.toBe(worktree.base);
    expect(outcome.files.map((file) => [file.path, file.status])).toEqual([
      ["a.txt", "modified"],
      ["b.txt", "added"],
    ]);
  });

  it("reports no changes as an empty list and an empty patch", async () => {
    const { worktree, out } = await setup({ "a.txt": "1\n" });
    const outcome = await captureOutcome(worktree.path, { outputDir: out });
    expect(outcome.files).toEqual([]);
    expect(outcome.patch_bytes).toBe(0);
    expect(outcome.base).toBe(worktree.base);
  });

  it("leaves out a run folder that lies inside the worktree", async () => {
    const { worktree } = await setup({ "a.txt": "1\n" });
    const out = join(worktree.path, "runs", "t1");
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, "events.jsonl"), "{}\n");
    writeFileSync(join(worktree.path, "a.txt"), "2\n");
    const outcome = await captureOutcome(worktree.path, { base: worktree.base, outputDir: out });
    expect(outcome.files.map((file) => file.path)).toEqual(["a.txt"]);
  });

  it("readOutcome names the file and the field that is wrong", async () => {
    const { out, worktree } = await setup({ "a.txt": "1\n" });
    await captureOutcome(worktree.path, { outputDir: out });
    const file = join(out, "outcome.json");
    const value = JSON.parse(readFileSync(file, "utf8"));
    value.files = [{ path: "x", status: "exploded" }];
    writeFileSync(file, JSON.stringify(value));
    expect(() => readOutcome(out)).toThrow(/outcome\.json \(field files\.0\.status\)/);
    rmSync(file);
    expect(() => readOutcome(out)).toThrow(/Cannot read .*outcome\.json/);
  });
});
