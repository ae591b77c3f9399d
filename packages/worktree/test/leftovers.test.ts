import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { cleanupDeadTrials, readOutcome, withTrialWorktree } from "../src/index.js";
import { type TestRepo, testRepos, worktreePaths } from "./git-repo.js";

const script = fileURLToPath(new URL("./fixtures/working-trial.mjs", import.meta.url));
const graderScript = fileURLToPath(new URL("./fixtures/grading-trial.mjs", import.meta.url));
const repo = testRepos();
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

/** A child node process running one trial that has changed a file and keeps working. */
async function startTrial(r: TestRepo, name: string) {
  const child = spawn(process.execPath, [script, r.root, r.treesDir, name], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  let stdout = "";
  const trial = await new Promise<{ path: string; outputDir: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`trial not ready: ${stdout}`)), 30_000);
    child.stdout!.on("data", (chunk) => {
      stdout += chunk;
      if (stdout.includes("READY")) {
        clearTimeout(timer);
        resolve(JSON.parse(stdout.split("\n").find((line) => line.startsWith("{"))!));
      }
    });
  });
  return { child, trial };
}

function exited(child: ChildProcess) {
  return new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null)
      resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once("exit", (code, signal) => resolve({ code, signal }));
  });
}

describe("Ctrl-C during a trial", () => {
  it("saves the trial's outcome before the worktree is removed", async () => {
    const r = repo();
    const { child, trial } = await startTrial(r, "interrupted");
    child.kill("SIGINT");
    expect(await exited(child)).toEqual({ code: null, signal: "SIGINT" });
    expect(existsSync(trial.path)).toBe(false);
    const outcome = readOutcome(trial.outputDir);
    expect(outcome.files.map((file) => [file.path, file.status])).toEqual([["agent-was-here.txt", "added"]]);
  });
});

describe("worktrees left by a SIGKILL", () => {
  it("are removed at the start of the next trial of the repository: only ours, only dead owners", async () => {
    const r = repo();
    const killed = await startTrial(r, "killed");
    const alive = await startTrial(r, "alive");
    killed.child.kill("SIGKILL");
    await exited(killed.child);
    // The fault: nothing could clean up after a kill -9.
    expect(existsSync(killed.trial.path)).toBe(true);
    // A worktree of the same repository that this package did not make.
    r.git("worktree", "add", "--detach", `${r.treesDir}-manual`, "HEAD");

    await withTrialWorktree(r.root, { treesDir: r.treesDir, name: "next" }, (trial) => {
      expect(new Set(worktreePaths(r))).toEqual(
        new Set([r.root, alive.trial.path, trial.path, `${r.treesDir}-manual`]),
      );
    });
    expect(existsSync(killed.trial.path)).toBe(false);
    expect(existsSync(alive.trial.path)).toBe(true);
    expect(existsSync(`${r.treesDir}-manual`)).toBe(true);
    // The killed trial's output folder is kept: it is the record of how far it got.
    expect(existsSync(killed.trial.outputDir)).toBe(true);
  });

  it("cleanupDeadTrials leaves live trials and reports what it removed", async () => {
    const r = repo();
    const alive = await startTrial(r, "alive");
    const killed = await startTrial(r, "killed");
    killed.child.kill("SIGKILL");
    await exited(killed.child);
    const report = await cleanupDeadTrials(r.root, { treesDir: r.treesDir });
    expect(report.worktrees).toEqual([killed.trial.path]);
    expect(existsSync(alive.trial.path)).toBe(true);
    expect(new Set(worktreePaths(r))).toEqual(new Set([r.root, alive.trial.path]));
  });
});

describe("command graders of a SIGKILLed test process", () => {
  it("are killed, with what they started, by the watchdog", async () => {
    const dir = mkdtempSync(join(tmpdir(), "worktree-grader-"));
    const child = spawn(process.execPath, [graderScript, dir], { stdio: "ignore" });
    children.push(child);
    try {
      const pidsFile = join(dir, "pids");
      const pids = () =>
        existsSync(pidsFile) ? readFileSync(pidsFile, "utf8").split("\n").filter(Boolean).map(Number) : [];
      expect(await waitFor(() => pids().length === 2, 30_000), "the grader's command never started").toBe(
        true,
      );
      expect(pids().filter(running)).toHaveLength(2);
      // The shell leads the grader's process group (its last `sleep` is in it too).
      const group = pids()[1]!;
      child.kill("SIGKILL");
      await exited(child);
      // The fault: the grader's shell and the sleeps it started outlived the test process.
      const left = () => [...pids().filter(running), ...groupMembers(group)];
      // The watchdog is a fresh node process: on a loaded machine it may take a while to start and act.
      const gone = await waitFor(() => left().length === 0, 30_000);
      expect(gone, `grader processes left: ${left().join(", ")}; watchdogs: ${watchdogs().join(", ")}`).toBe(
        true,
      );
    } finally {
      const group = readPids(dir)[1];
      if (group !== undefined) killQuietly(-group);
      for (const pid of readPids(dir)) killQuietly(pid);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** The watchdog processes running now, with their parent (for the failure message). */
function watchdogs(): string[] {
  const found: string[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, "utf8").includes("watchdog.cjs")) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      found.push(`${entry} (ppid ${stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]})`);
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

function readPids(dir: string): number[] {
  try {
    return readFileSync(join(dir, "pids"), "utf8").split("\n").filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Whether a process runs (a zombie, killed and not yet reaped, does not). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** The running processes of a process group. */
function groupMembers(pgid: number): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        return fields[0] !== "Z" && Number(fields[2]) === pgid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Gone already.
  }
}

async function waitFor(condition: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return condition();
}
