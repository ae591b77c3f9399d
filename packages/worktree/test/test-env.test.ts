import { existsSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runFolderPath } from "@evals/core";
import { describe, expect, it } from "vitest";
import { setupWorktreeTestEnv } from "../src/index.js";
import { testRepos } from "./git-repo.js";

const repo = testRepos();

describe("setupWorktreeTestEnv", () => {
  it("creates <worktree>/test-output/<id>/ and returns the env a run needs", async () => {
    const r = repo();
    const env = await setupWorktreeTestEnv(r.root, "run-1");
    expect(env).toEqual({
      TEST_MODE: "true",
      TEST_RUN_ID: "run-1",
      CLAUDE_PROJECT_DIR: r.root,
      EVALS_OUTPUT_DIR: r.root,
      EVALS_CASSETTE_DIR: join(r.root, "cassettes"),
    });
    const runDir = join(r.root, "test-output", "run-1");
    expect(statSync(runDir).isDirectory()).toBe(true);
    expect(runFolderPath(env.TEST_RUN_ID, env.EVALS_OUTPUT_DIR)).toBe(runDir);
    // The capture hook writes $EVALS_OUTPUT_DIR/test-output/$TEST_RUN_ID/events.jsonl: that folder.
    expect(join(env.EVALS_OUTPUT_DIR, "test-output", env.TEST_RUN_ID)).toBe(runDir);
  });

  it("keeps run outputs out of git status", async () => {
    const r = repo();
    await setupWorktreeTestEnv(r.root, "run-1");
    r.write("test-output/run-1/events.jsonl", "{}\n");
    expect(r.git("status", "--porcelain", "--untracked-files=all")).toBe("");
  });

  it("takes another output root and cassette folder", async () => {
    const folder = realpathSync(mkdtempSync(join(tmpdir(), "evals-wt-env-")));
    try {
      const env = await setupWorktreeTestEnv(folder, "run-2", {
        outputRoot: join(folder, "out"),
        cassetteDir: join(folder, "tapes"),
      });
      expect(env.EVALS_OUTPUT_DIR).toBe(join(folder, "out"));
      expect(env.EVALS_CASSETTE_DIR).toBe(join(folder, "tapes"));
      expect(env.CLAUDE_PROJECT_DIR).toBe(folder);
      expect(existsSync(join(folder, "out", "test-output", "run-2"))).toBe(true);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("refuses unsafe ids and missing worktrees, creating nothing", async () => {
    const folder = realpathSync(mkdtempSync(join(tmpdir(), "evals-wt-env-")));
    try {
      await expect(setupWorktreeTestEnv(folder, "../escape")).rejects.toThrow(/Invalid test id "..\/escape"/);
      await expect(setupWorktreeTestEnv(join(folder, "missing"), "ok")).rejects.toMatchObject({
        code: "INVALID_PATH",
      });
      expect(readdirSync(folder)).toEqual([]);
      expect(() => runFolderPath("a/b", folder)).toThrow(/Invalid run id "a\/b"/);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
