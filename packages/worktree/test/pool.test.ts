import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { CapturedEventSchema, readJsonlFile } from "@evals/core";
import { describe, expect, it } from "vitest";
import { runTrials, runWithConcurrency } from "../src/index.js";
import { testRepos, worktreePaths } from "./git-repo.js";

const execFileAsync = promisify(execFile);
const agent = fileURLToPath(new URL("./fixtures/replayed-agent.mjs", import.meta.url));

const repo = testRepos();

/** Resolves once `count` callers wait on it; rejects after 30 s if they never all arrive. */
function barrier(count: number): () => Promise<void> {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return () => {
    if (++arrived === count) open();
    return Promise.race([
      opened,
      new Promise<void>((_, reject) =>
        setTimeout(() => reject(new Error(`only ${arrived} of ${count} trials ran at once`)), 30_000).unref(),
      ),
    ]);
  };
}

describe("runWithConcurrency", () => {
  it("never runs more than the limit at once and keeps the items' order", async () => {
    let running = 0;
    let most = 0;
    const results = await runWithConcurrency([50, 10, 40, 20, 30, 5, 25], 3, async (ms, index) => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, ms));
      running--;
      if (index === 2) throw new Error("third failed");
      return index * 10;
    });
    expect(most).toBe(3);
    expect(results.map((result) => (result.status === "fulfilled" ? result.value : "failed"))).toEqual([
      0,
      10,
      "failed",
      30,
      40,
      50,
      60,
    ]);
  });

  it("refuses a limit that is not a whole number of at least 1", async () => {
    await expect(runWithConcurrency([1], 0, (x) => x)).rejects.toThrow(RangeError);
    await expect(runWithConcurrency([1], 1.5, (x) => x)).rejects.toThrow(/at least 1/);
  });
});

describe("runTrials", () => {
  it("8 concurrent trials each see and produce only their own events and changes", async () => {
    const r = repo({ "shared.txt": "original\n" });
    const before = r.snapshot(["shared.txt"]);
    // Every trial waits here until all 8 have their worktree: proof that they all run at once.
    const allStarted = barrier(8);

    const reports = await runTrials(
      r.root,
      { trials: 8, concurrency: 8, name: "iso", treesDir: r.treesDir },
      async (trial, index) => {
        await allStarted();
        await execFileAsync(process.execPath, [agent, `trial${index}`, "3", "30"], {
          cwd: trial.path,
          env: { ...process.env, ...trial.env },
        });
        return readFileSync(join(trial.path, "shared.txt"), "utf8");
      },
    );

    expect(reports.map((report) => report.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(new Set(reports.map((report) => report.testId)).size).toBe(8);
    for (const report of reports) {
      const label = `trial${report.index}`;
      expect(report.ok, String(!report.ok && report.error)).toBe(true);
      // The trial saw the original file plus only its own edit.
      if (report.ok) expect(report.value).toBe(`original\nedited by ${label}\n`);

      const events = await readJsonlFile(join(report.outputDir, "events.jsonl"), {
        schema: CapturedEventSchema,
      });
      expect(events).toHaveLength(5);
      for (const value of events) {
        expect(value.run_id).toBe(report.testId);
        expect(value.event.session_id).toBe(`session-${label}`);
      }

      expect(report.outcome?.files.map((file) => [file.path, file.status])).toEqual([
        [`made-by-${label}.txt`, "added"],
        ["shared.txt", "modified"],
      ]);
      const patch = readFileSync(join(report.outputDir, "outcome.patch"), "utf8");
      expect(patch).toContain(`+edited by ${label}\n`);
      expect(patch.match(/edited by trial\d/g)).toEqual([`edited by ${label}`]);
    }
    expect(worktreePaths(r)).toEqual([r.root]);
    expect(r.snapshot(["shared.txt"])).toBe(before);
  });

  it("one failing trial does not stop the others; reports stay in order", async () => {
    const r = repo({ "shared.txt": "original\n" });
    const reports = await runTrials(
      r.root,
      { trials: 5, concurrency: 2, treesDir: r.treesDir },
      async (trial, index) => {
        if (index === 1) throw new Error("trial 2 broke");
        await execFileAsync(process.execPath, [agent, `t${index}`, "1", "0"], {
          cwd: trial.path,
          env: { ...process.env, ...trial.env },
        });
        return index;
      },
    );
    expect(reports.map((report) => report.ok)).toEqual([true, false, true, true, true]);
    const failed = reports[1]!;
    expect(!failed.ok && (failed.error as Error).message).toBe("trial 2 broke");
    expect(failed.outcome?.files).toEqual([]);
    expect(reports.map((report) => (report.ok ? report.value : null))).toEqual([0, null, 2, 3, 4]);
    expect(worktreePaths(r)).toEqual([r.root]);
  });

  it("takes explicit test ids, and reports creation errors per trial", async () => {
    const r = repo();
    const reports = await runTrials(
      r.root,
      { trials: ["case-a-1", "case-a-2"], ref: "no-such-ref", treesDir: r.treesDir },
      () => "never",
    );
    expect(reports.map((report) => report.testId)).toEqual(["case-a-1", "case-a-2"]);
    for (const report of reports) {
      expect(report.ok).toBe(false);
      expect(!report.ok && report.error).toMatchObject({ code: "UNKNOWN_REF" });
    }
    await expect(runTrials(r.root, { trials: ["../x"] }, () => 1)).rejects.toThrow(
      /Invalid test id "..\/x": it contains "\/"/,
    );
  });
});
