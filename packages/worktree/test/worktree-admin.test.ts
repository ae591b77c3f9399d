import { describe, expect, it } from "vitest";
import { isWorktreeEntryRace } from "../src/worktree-admin.js";

// git's messages when another process added or removed a worktree entry while this command read the
// entries, as seen in the "3 processes running 4 trials each" test: such a failure is retried.
describe("isWorktreeEntryRace", () => {
  it("recognises an entry read half-written", () => {
    expect(
      isWorktreeEntryRace(
        "fatal: failed to read /tmp/r/repo/.git/worktrees/alpha-1-20261123T114700342Z-5285118a4bb3/commondir: No such file or directory\n",
      ),
    ).toBe(true);
  });

  it("recognises an entry removed between listing and reading it", () => {
    expect(
      isWorktreeEntryRace(
        "Preparing worktree (detached HEAD b4e368e)\nfatal: Invalid path '/tmp/evals-wt-test-Re8U0t/repo/.git/worktrees/beta-3-20261123T114659986Z-deeb7f19a33d': No such file or directory\n",
      ),
    ).toBe(true);
  });

  it("does not retry other failures", () => {
    expect(isWorktreeEntryRace("fatal: invalid reference: no-such-branch\n")).toBe(false);
    expect(isWorktreeEntryRace("fatal: '/tmp/trees/x' already exists\n")).toBe(false);
    expect(isWorktreeEntryRace("fatal: cannot open '/tmp/x/file': No such file or directory\n")).toBe(false);
  });
});
