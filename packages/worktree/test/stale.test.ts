import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanupStale, createWorktree, listWorktrees } from "../src/index.js";
import { trialMetadataPath } from "../src/trial-metadata.js";
import { testRepos, worktreePaths } from "./git-repo.js";

const repo = testRepos();

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A pid that belonged to a process that has exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ["-e", "0"]).pid!;
}

/** Makes a worktree look as if a process that is gone made it `ageMs` ago. */
function ageTrial(path: string, ageMs: number, pid = deadPid()): void {
  const file = trialMetadataPath(path);
  const metadata = JSON.parse(readFileSync(file, "utf8"));
  writeFileSync(
    file,
    JSON.stringify({ ...metadata, pid, created_at: new Date(Date.now() - ageMs).toISOString() }),
  );
}

function age(path: string, ageMs: number): void {
  const when = new Date(Date.now() - ageMs);
  utimesSync(path, when, when);
}

describe("cleanupStale", () => {
  it("removes old abandoned trial worktrees, leftover folders and output folders, and nothing else", async () => {
    const r = repo();
    // Abandoned by a crashed process two days ago.
    const abandoned = await createWorktree(r.root, { treesDir: r.treesDir, testId: "abandoned" });
    abandoned.keep();
    ageTrial(abandoned.path, 2 * DAY);
    // Abandoned, but recent.
    const recent = await createWorktree(r.root, { treesDir: r.treesDir, testId: "recent" });
    recent.keep();
    ageTrial(recent.path, HOUR);
    // Old, but its process (this one) still uses it.
    const live = await createWorktree(r.root, { treesDir: r.treesDir, testId: "live" });
    ageTrial(live.path, 2 * DAY, process.pid);
    // A worktree the user made by hand.
    const mine = join(r.treesDir, "..", "hand-made");
    r.git("worktree", "add", "--detach", mine);
    // A half-made trial folder git never registered.
    mkdirSync(join(r.treesDir, "half-made"));
    age(join(r.treesDir, "half-made"), 2 * DAY);
    // Run outputs: one old, one fresh, one of the live trial.
    for (const [id, ageMs] of [
      ["old-run", 2 * DAY],
      ["fresh-run", HOUR],
      ["live", 2 * DAY],
    ] as const) {
      r.write(`test-output/${id}/events.jsonl`, "{}\n");
      age(join(r.root, "test-output", id, "events.jsonl"), ageMs);
      age(join(r.root, "test-output", id), ageMs);
    }

    const dry = await cleanupStale(r.root, { olderThanMs: DAY, treesDir: r.treesDir, dryRun: true });
    expect(dry.worktrees).toEqual([abandoned.path]);
    expect(existsSync(abandoned.path)).toBe(true);

    const report = await cleanupStale(r.root, { olderThanMs: DAY, treesDir: r.treesDir });
    expect(report.worktrees).toEqual([abandoned.path]);
    expect(report.folders).toEqual([join(r.treesDir, "half-made")]);
    expect(report.outputDirs).toEqual([join(r.root, "test-output", "old-run")]);
    expect(report.skipped.map((skip) => skip.reason)).toEqual(
      expect.arrayContaining(["in use by this process", "its trial is still running"]),
    );

    expect(worktreePaths(r).sort()).toEqual([r.root, recent.path, live.path, mine].sort());
    expect(existsSync(trialMetadataPath(abandoned.path))).toBe(false);
    expect(existsSync(join(r.root, "test-output", "fresh-run"))).toBe(true);
    expect(existsSync(join(r.root, "test-output", "live"))).toBe(true);
    expect(existsSync(join(r.root, "test-output", "old-run"))).toBe(false);
    expect(existsSync(join(r.root, "README.md"))).toBe(true);

    await live.remove();
    await recent.remove();
  });

  it("leaves a trial of another live process alone", async () => {
    const r = repo();
    const other = await createWorktree(r.root, { treesDir: r.treesDir });
    other.keep();
    ageTrial(other.path, 2 * DAY, process.ppid);
    const report = await cleanupStale(r.root, { olderThanMs: DAY, treesDir: r.treesDir });
    expect(report.worktrees).toEqual([]);
    expect(report.skipped).toEqual([{ path: other.path, reason: `in use by process ${process.ppid}` }]);
    ageTrial(other.path, 2 * DAY);
    expect((await cleanupStale(r.root, { olderThanMs: DAY, treesDir: r.treesDir })).worktrees).toEqual([
      other.path,
    ]);
    expect(worktreePaths(r)).toEqual([r.root]);
  });

  it("prunes worktrees whose folders were deleted by hand", async () => {
    const r = repo();
    const gone = await createWorktree(r.root, { treesDir: r.treesDir });
    gone.keep();
    spawnSync("rm", ["-rf", gone.path]);
    expect((await listWorktrees(r.root))[1]?.prunable).toBeDefined();
    await cleanupStale(r.root, { olderThanMs: 0, treesDir: r.treesDir, outputs: false });
    expect(worktreePaths(r)).toEqual([r.root]);
    expect(existsSync(trialMetadataPath(gone.path))).toBe(false);
  });
});
