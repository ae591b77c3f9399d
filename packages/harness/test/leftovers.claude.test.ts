import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { skipIfNoClaude } from "@evals/claude-code";
import { cleanupLeftoverRuns, isAlive, listProcesses, runLocksDir } from "@evals/core/process";
import { startInterruptedRun } from "@evals/test-kit/interrupted-run";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** The real claude CLI installed at the workspace root (2.1.330). */
const claudeBin = resolve(__dirname, "../../../node_modules/.bin/claude");
const nextRunScript = join(__dirname, "__fixtures__", "next-run.mjs");

let root: string;
let project: string;
let outputRoot: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "harness-leftovers-"));
  project = join(root, "project");
  outputRoot = join(root, "out");
  mkdirSync(project);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A test process (a child node) that starts a run against a model that never answers. */
async function startRunInChild(tmp?: string): Promise<{
  parent: ChildProcess;
  cli: number;
  watchdog: number;
  sandbox: string;
  lockFile: string;
}> {
  const parent = await startInterruptedRun({
    runAgentModule: pathToFileURL(createRequire(import.meta.url).resolve("@evals/claude-code")).href,
    claudeBin,
    cwd: project,
    outputRoot,
    ...(tmp ? { env: { ...process.env, TMPDIR: tmp } } : {}),
  });
  const children = listProcesses().filter((proc) => proc.ppid === parent.pid);
  const cmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, "utf8");
  const watchdog = children.find((proc) => cmdline(proc.pid).includes("watchdog.cjs"));
  const cli = children.find((proc) => proc !== watchdog);
  expect(watchdog, "no watchdog process").toBeDefined();
  expect(cli, "no CLI process").toBeDefined();
  const environ = readFileSync(`/proc/${cli!.pid}/environ`, "utf8").split("\0");
  const sandbox = dirname(environ.find((entry) => entry.startsWith("HOME="))!.slice("HOME=".length));
  const marker = environ.find((entry) => entry.startsWith("EVALS_RUN_MARKER="))!.split("=")[1]!;
  return {
    parent,
    cli: cli!.pid,
    watchdog: watchdog!.pid,
    sandbox,
    lockFile: join(tmp ? withTmpdir(tmp, runLocksDir) : runLocksDir(), `${marker}.json`),
  };
}

/**
 * Runs `fn` with os.tmpdir() answering `dir`. A run started under a temp dir of its own has its lock
 * file and sandbox there, out of sight of the start-up sweeps of every other test process on the
 * machine (which would otherwise clean up the dead run before the test's own sweep could).
 */
function withTmpdir<T>(dir: string, fn: () => T): T {
  const before = process.env.TMPDIR;
  const restore = () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
  };
  process.env.TMPDIR = dir;
  let result: T;
  try {
    result = fn();
  } catch (error) {
    restore();
    throw error;
  }
  // An async fn keeps the temp dir until it settles.
  if (result instanceof Promise) return result.finally(restore) as T;
  restore();
  return result;
}

async function waitFor(condition: () => boolean, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return condition();
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
}

describe("a run leaves nothing behind when its test process is SIGKILLed", () => {
  it("the watchdog kills the CLI, deletes the sandbox and the lock file", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    const run = await startRunInChild();
    try {
      expect(existsSync(run.lockFile)).toBe(true);
      run.parent.kill("SIGKILL");
      await exited(run.parent);
      expect(await waitFor(() => !isAlive(run.cli))).toBe(true);
      expect(listProcesses().filter((proc) => proc.pgid === run.cli)).toEqual([]);
      expect(await waitFor(() => !existsSync(run.sandbox))).toBe(true);
      expect(await waitFor(() => !existsSync(run.lockFile))).toBe(true);
      expect(await waitFor(() => !isAlive(run.watchdog))).toBe(true);
    } finally {
      for (const pid of [run.cli, run.watchdog]) killQuietly(pid);
      rmSync(run.sandbox, { recursive: true, force: true });
    }
  });

  it("when the watchdog died too, the next start finds the dead run's leftovers and cleans them up", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    const tmp = mkdtempSync(join(root, "tmp-"));
    const run = await startRunInChild(tmp);
    try {
      await killTestProcessAndWatchdog(run);
      expect(existsSync(run.lockFile)).toBe(true);

      const report = await withTmpdir(tmp, cleanupLeftoverRuns);
      expect(report.runs).toContain(run.lockFile);
      expect(report.processes).toContain(run.cli);
      expect(report.sandboxes).toContain(run.sandbox);
      expect(await waitFor(() => !isAlive(run.cli))).toBe(true);
      expect(existsSync(run.sandbox)).toBe(false);
      expect(existsSync(run.lockFile)).toBe(false);
    } finally {
      killQuietly(run.cli);
      rmSync(run.sandbox, { recursive: true, force: true });
    }
  });
});

describe("the next run after a SIGKILL of the test process and its watchdog", () => {
  it("cleans up the dead run's CLI, sandbox and lock file before it starts (runAgent's start-up sweep)", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    const tmp = mkdtempSync(join(root, "tmp-next-"));
    const run = await startRunInChild(tmp);
    try {
      await killTestProcessAndWatchdog(run);
      expect(existsSync(run.sandbox)).toBe(true);

      // Another test process, under the same temp dir, runs an agent: nothing else is called.
      const next = spawn(process.execPath, [nextRunScript, claudeBin, project, outputRoot], {
        stdio: ["ignore", "pipe", "inherit"],
        env: { ...process.env, TMPDIR: tmp },
      });
      let stdout = "";
      next.stdout!.on("data", (chunk: Buffer) => {
        stdout += chunk;
      });
      const code = await new Promise<number | null>((resolve) => next.once("exit", (c) => resolve(c)));
      expect({ code, done: stdout.includes("next-run-done") }).toEqual({ code: 0, done: true });
      expect(await waitFor(() => !isAlive(run.cli))).toBe(true);
      expect(existsSync(run.sandbox)).toBe(false);
      expect(existsSync(run.lockFile)).toBe(false);
    } finally {
      killQuietly(run.cli);
      rmSync(run.sandbox, { recursive: true, force: true });
    }
  });
});

function killQuietly(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Gone already.
  }
}

describe("Ctrl-C during a worktree trial", () => {
  it("saves the trial's outcome, stops the agent and removes the worktree", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    const repo = join(root, "repo");
    mkdirSync(repo);
    const git = (...args: string[]) =>
      execFileSync("git", ["-C", repo, "-c", "user.name=t", "-c", "user.email=t@evals.invalid", ...args], {
        encoding: "utf8",
      });
    git("init", "-q");
    writeFileSync(join(repo, "README.md"), "# repo\n");
    git("add", "--all");
    git("commit", "-q", "-m", "initial");
    const out = join(root, "ctrl-c-out");
    const child = spawn(
      process.execPath,
      [join(__dirname, "__fixtures__", "interrupted-worktree-trial.mjs"), claudeBin, repo, out],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("the agent never got to work")), 90_000);
        child.stdout!.on("data", (chunk: Buffer) => {
          if (chunk.toString().includes("ready")) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      const runDir = join(out, "test-output", `ctrl-c-${child.pid}`);
      const cli = listProcesses().find(
        (proc) =>
          proc.ppid === child.pid && !readFileSync(`/proc/${proc.pid}/cmdline`, "utf8").includes("watchdog"),
      );
      child.kill("SIGINT");
      const status = await new Promise<NodeJS.Signals | null>((resolve) =>
        child.once("exit", (_code, signal) => resolve(signal)),
      );
      expect(status).toBe("SIGINT");
      const outcome = JSON.parse(readFileSync(join(runDir, "outcome.json"), "utf8"));
      expect(outcome.files.map((file: { path: string }) => file.path)).toEqual(["agent-was-here.txt"]);
      expect(git("worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(1);
      if (cli) expect(await waitFor(() => !isAlive(cli.pid))).toBe(true);
    } finally {
      child.kill("SIGKILL");
    }
  });
});

describe("a run killed after it printed a secret leaves it in no file", () => {
  for (const signal of ["SIGTERM", "SIGKILL"] as const) {
    it(`${signal} of the test process: the run folder is redacted`, async (ctx) => {
      skipIfNoClaude(ctx, { claudeBin });
      const token = `planted-token-${signal}-${process.pid}`;
      const out = join(root, `secret-out-${signal}`);
      const child = spawn(
        process.execPath,
        [join(__dirname, "__fixtures__", "secret-run.mjs"), claudeBin, project, out, token],
        { stdio: ["ignore", "pipe", "inherit"] },
      );
      try {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error("the run never printed")), 90_000);
          child.stdout!.on("data", (chunk: Buffer) => {
            if (chunk.toString().includes("printed")) {
              clearTimeout(timer);
              resolve();
            }
          });
        });
        const runDir = readdirSync(join(out, "test-output")).map((id) => join(out, "test-output", id))[0]!;
        // The hook has written the Agent call, token included, before the kill.
        expect(await waitFor(() => existsSync(join(runDir, "events.jsonl")) && fileHas(runDir, token))).toBe(
          true,
        );
        const locks = () => (existsSync(runLocksDir()) ? readdirSync(runLocksDir()) : []);
        const marker = readFileSync(`/proc/${cliOf(child.pid!)}/environ`, "utf8").match(
          /EVALS_RUN_MARKER=([^\0]+)/,
        )![1]!;
        child.kill(signal);
        await exited(child);
        // Done when the lock file is gone (the exit handler or the watchdog removes it last).
        expect(await waitFor(() => !locks().includes(`${marker}.json`))).toBe(true);
        expect(fileHas(runDir, token)).toBe(false);
        expect(readFileSync(join(runDir, "events.jsonl"), "utf8")).toContain("[REDACTED]");
      } finally {
        child.kill("SIGKILL");
      }
    });
  }
});

function cliOf(parent: number): number {
  const cli = listProcesses().find(
    (proc) => proc.ppid === parent && !readFileSync(`/proc/${proc.pid}/cmdline`, "utf8").includes("watchdog"),
  );
  return cli!.pid;
}

/** Whether any file of the folder holds `text`. */
function fileHas(dir: string, text: string): boolean {
  return readdirSync(dir).some((name) => readFileSync(join(dir, name), "latin1").includes(text));
}

/**
 * SIGKILLs a run's test process and its watchdog at once, as `kill -9` of everything would: nobody
 * is left to clean up, and the CLI lives on.
 */
async function killTestProcessAndWatchdog(run: Awaited<ReturnType<typeof startRunInChild>>): Promise<void> {
  process.kill(run.watchdog, "SIGKILL");
  run.parent.kill("SIGKILL");
  await exited(run.parent);
  await new Promise((r) => setTimeout(r, 500));
  expect(isAlive(run.cli), "the CLI outlived its test process").toBe(true);
}
