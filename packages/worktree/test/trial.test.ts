import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { pendingExitCleanups, readOutcome, type Trial, withTrialWorktree } from "../src/index.js";
import { isRunning, leftovers, type TestRepo, testRepos, worktreePaths } from "./git-repo.js";

const repo = testRepos();

describe("withTrialWorktree", () => {
  it("gives the callback a worktree, env and output folder, saves the outcome and removes the worktree", async () => {
    const r = repo({ "a.txt": "before\n" });
    let seen: Trial | undefined;
    const value = await withTrialWorktree(r.root, { treesDir: r.treesDir, name: "happy" }, async (trial) => {
      seen = trial;
      expect(worktreePaths(r)).toEqual([r.root, trial.path]);
      expect(trial.env).toMatchObject({
        TEST_MODE: "true",
        TEST_RUN_ID: trial.testId,
        CLAUDE_PROJECT_DIR: trial.path,
        EVALS_OUTPUT_DIR: r.root,
        EVALS_CASSETTE_DIR: join(r.root, "cassettes"),
      });
      expect(trial.outputDir).toBe(join(r.root, "test-output", trial.testId));
      expect(trial.testId).toMatch(/^happy-/);
      writeFileSync(join(trial.path, "a.txt"), "after\n");
      return "result";
    });
    expect(value).toBe("result");
    expect(worktreePaths(r)).toEqual([r.root]);
    expect(leftovers(r.treesDir)).toEqual([]);
    const outcome = readOutcome(seen!.outputDir);
    expect(outcome.files.map((file) => file.path)).toEqual(["a.txt"]);
    expect(outcome.test_id).toBe(seen!.testId);
    // The user's checkout got only the ignored output folder.
    expect(r.git("status", "--porcelain", "--untracked-files=all")).toBe("");
    expect(r.read("a.txt")).toBe("before\n");
  });

  it("after a thrown error: rethrows it, keeps the outcome, removes the worktree", async () => {
    const r = repo({ "a.txt": "before\n" });
    let outputDir = "";
    const boom = new Error("the agent crashed");
    await expect(
      withTrialWorktree(r.root, { treesDir: r.treesDir }, (trial) => {
        outputDir = trial.outputDir;
        writeFileSync(join(trial.path, "partial.txt"), "half done\n");
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(worktreePaths(r)).toEqual([r.root]);
    expect(leftovers(r.treesDir)).toEqual([]);
    expect(readOutcome(outputDir).files.map((file) => file.path)).toEqual(["partial.txt"]);
  });

  it("after a timeout: aborts the trial's signal, fails with TRIAL_TIMEOUT, removes the worktree", async () => {
    const r = repo();
    let aborted = false;
    await expect(
      withTrialWorktree(r.root, { treesDir: r.treesDir, timeoutMs: 200 }, async (trial) => {
        await new Promise<void>((resolve) => {
          trial.signal.addEventListener("abort", () => {
            aborted = true;
            resolve();
          });
        });
        return "finished anyway";
      }),
    ).rejects.toMatchObject({ code: "TRIAL_TIMEOUT" });
    expect(aborted).toBe(true);
    expect(worktreePaths(r)).toEqual([r.root]);
  });

  it("after a timeout, a callback that ignores the signal gets a grace period, then the trial fails anyway", async () => {
    const r = repo();
    const started = Date.now();
    await expect(
      withTrialWorktree(
        r.root,
        { treesDir: r.treesDir, timeoutMs: 100, graceMs: 100 },
        () => new Promise(() => {}),
      ),
    ).rejects.toMatchObject({ code: "TRIAL_TIMEOUT" });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(worktreePaths(r)).toEqual([r.root]);
  });

  it("a timeout stops a running command grader", async () => {
    const r = repo();
    const started = Date.now();
    await expect(
      withTrialWorktree(r.root, { treesDir: r.treesDir, timeoutMs: 300 }, (trial) =>
        trial.grade({ command: "sleep 30" }),
      ),
    ).rejects.toMatchObject({ code: "TRIAL_TIMEOUT" });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(worktreePaths(r)).toEqual([r.root]);
  });

  it("stops when the caller's signal aborts (TRIAL_INTERRUPTED)", async () => {
    const r = repo();
    const controller = new AbortController();
    const trial = withTrialWorktree(
      r.root,
      { treesDir: r.treesDir, signal: controller.signal },
      async (t) => {
        setTimeout(() => controller.abort(), 50);
        await new Promise((resolve) => t.signal.addEventListener("abort", resolve));
      },
    );
    await expect(trial).rejects.toMatchObject({ code: "TRIAL_INTERRUPTED" });
    expect(worktreePaths(r)).toEqual([r.root]);
    // Already stopped: no worktree is made at all.
    let called = false;
    await expect(
      withTrialWorktree(r.root, { treesDir: r.treesDir, signal: controller.signal }, () => {
        called = true;
      }),
    ).rejects.toMatchObject({ code: "TRIAL_INTERRUPTED" });
    expect(called).toBe(false);
    expect(leftovers(r.treesDir)).toEqual([]);
  });

  it("keeps a failed trial's worktree when asked, and not a passed one", async () => {
    const r = repo();
    let kept = "";
    await expect(
      withTrialWorktree(r.root, { treesDir: r.treesDir, keep: "on-failure" }, (trial) => {
        kept = trial.path;
        throw new Error("look at me");
      }),
    ).rejects.toThrow("look at me");
    expect(worktreePaths(r)).toEqual([r.root, kept]);
    await withTrialWorktree(r.root, { treesDir: r.treesDir, keep: "on-failure" }, () => undefined);
    expect(worktreePaths(r)).toEqual([r.root, kept]);
    expect(pendingExitCleanups()).toBe(0);
  });

  it("lets the callback capture the outcome before grading, and keeps that capture", async () => {
    const r = repo({ "a.txt": "1\n" });
    await withTrialWorktree(r.root, { treesDir: r.treesDir }, async (trial) => {
      writeFileSync(join(trial.path, "a.txt"), "2\n");
      const outcome = await trial.captureOutcome();
      expect(outcome.files.map((file) => file.path)).toEqual(["a.txt"]);
      // A grader's own side effects after the capture do not change the saved outcome.
      const result = await trial.grade({ command: "echo made by the grader > grader.txt" });
      expect(result.passed).toBe(true);
      return trial.outputDir;
    }).then((outputDir) => {
      expect(readOutcome(outputDir).files.map((file) => file.path)).toEqual(["a.txt"]);
    });
  });

  it("refuses an id whose output folder holds another run, touching nothing", async () => {
    const r = repo();
    r.write("test-output/taken/events.jsonl", "{}\n");
    await expect(
      withTrialWorktree(r.root, { treesDir: r.treesDir, testId: "taken" }, () => undefined),
    ).rejects.toMatchObject({ code: "ID_IN_USE" });
    expect(r.read("test-output/taken/events.jsonl")).toBe("{}\n");
    expect(worktreePaths(r)).toEqual([r.root]);
  });

  it("never leaks signal listeners, however many trials run", async () => {
    const r = repo();
    const baseline = process.listenerCount("SIGINT");
    const baselineTerm = process.listenerCount("SIGTERM");
    const baselineExit = process.listenerCount("exit");
    const during: number[] = [];
    for (let i = 0; i < 10; i++) {
      await withTrialWorktree(r.root, { treesDir: r.treesDir }, () => {
        during.push(process.listenerCount("SIGINT"));
      });
    }
    await Promise.all(
      Array.from({ length: 5 }, () =>
        withTrialWorktree(r.root, { treesDir: r.treesDir }, () => {
          during.push(process.listenerCount("SIGINT"));
        }),
      ),
    );
    expect(new Set(during)).toEqual(new Set([baseline + 1]));
    expect(process.listenerCount("SIGINT")).toBe(baseline);
    expect(process.listenerCount("SIGTERM")).toBe(baselineTerm);
    expect(process.listenerCount("exit")).toBe(baselineExit);
    expect(pendingExitCleanups()).toBe(0);
  });
});

describe("interrupts", () => {
  const script = fileURLToPath(new URL("./fixtures/interrupted-trial.mjs", import.meta.url));

  function start(r: TestRepo, trials: number, grader?: string) {
    const child = spawn(
      process.execPath,
      [script, r.root, r.treesDir, String(trials), ...(grader ? [grader] : [])],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stdout = "";
    const ready = new Promise<{ path: string; outputDir: string }[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`child not ready: ${stdout}`)), 40_000);
      child.stdout.on("data", (chunk) => {
        stdout += chunk;
        if (stdout.includes("READY")) {
          clearTimeout(timer);
          resolve(
            stdout
              .split("\n")
              .filter((line) => line.startsWith("{"))
              .map((line) => JSON.parse(line)),
          );
        }
      });
    });
    return { child, ready };
  }

  function exited(child: ChildProcess) {
    return new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null)
        resolve({ code: child.exitCode, signal: child.signalCode });
      child.once("exit", (code, signal) => resolve({ code, signal }));
    });
  }

  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it(`${signal} removes every live trial worktree, then the process dies of ${signal}`, async () => {
      const r = repo();
      const { child, ready } = start(r, 3);
      try {
        const trials = await ready;
        expect(worktreePaths(r)).toEqual(
          [r.root, ...trials.map((trial) => trial.path)].sort(byMainFirst(r.root)),
        );
        child.kill(signal);
        expect(await exited(child)).toEqual({ code: null, signal });
        expect(worktreePaths(r)).toEqual([r.root]);
        expect(leftovers(r.treesDir)).toEqual([]);
        for (const trial of trials) expect(existsSync(trial.path)).toBe(false);
      } finally {
        child.kill("SIGKILL");
      }
    });
  }

  it("SIGINT during a command grader kills the command's whole process group too", async () => {
    const r = repo();
    const pidFile = join(r.treesDir, "..", "grader.pid");
    const { child, ready } = start(r, 1, `sleep 30 & echo $! > ${pidFile}; wait`);
    try {
      await ready;
      // Wait until the grader has written its child's pid (a shell starts slowly on a loaded machine).
      await expect.poll(() => existsSync(pidFile), { timeout: 30_000 }).toBe(true);
      const grandchild = Number(readFileSync(pidFile, "utf8"));
      child.kill("SIGINT");
      expect((await exited(child)).signal).toBe("SIGINT");
      expect(worktreePaths(r)).toEqual([r.root]);
      // The group is killed before the process dies; the kill may take a moment to land under load.
      await expect.poll(() => isRunning(grandchild), { timeout: 15_000 }).toBe(false);
    } finally {
      child.kill("SIGKILL");
    }
  });
});

function byMainFirst(main: string) {
  return (a: string, b: string) => (a === main ? -1 : b === main ? 1 : a.localeCompare(b));
}
