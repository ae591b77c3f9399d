import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { hostname, tmpdir, userInfo } from "node:os";
import { join, resolve, sep } from "node:path";
import { isAlive, killProcessTree, processStartTime } from "./process-tree.js";
import { createRedactor, redactTreeSync } from "./redact.js";
import { guardUntilExit, watchdogPid } from "./watchdog.js";

/**
 * Nothing of a run outlives the process that started it, even when that process is SIGKILLed:
 * - every run in flight has a lock file (`<tmp>/evals-runs-<uid>/<marker>.json`) naming its owner
 *   process, its marker, output folder and sandbox;
 * - a watchdog process (@evals/core's guardUntilExit, one per owner process) kills a run's processes, redacts its
 *   output folder and deletes its sandbox as soon as the owner dies;
 * - should the watchdog have died too (a kill of every process at once), the next process that runs
 *   an agent finds the lock files of dead owners and cleans up after them (cleanupLeftoverRuns).
 */

const LOCK_VERSION = 1;

/** What a lock file says about one run in flight. */
export interface RunLock {
  version: typeof LOCK_VERSION;
  marker: string;
  owner_pid: number;
  /** The owner's start time (Linux clock ticks since boot), so a reused pid is not taken for it. */
  owner_started?: number;
  hostname: string;
  output_dir: string;
  sandbox: string;
  created_at: string;
  /** The owner's watchdog: while it lives, it cleans up with the run's own redaction patterns. */
  watchdog_pid?: number;
}

/** The folder of lock files of this user's runs in flight. */
export function runLocksDir(): string {
  let uid = "user";
  try {
    uid = String(userInfo().uid);
  } catch {
    // No user entry (some containers): one folder for everyone.
  }
  return join(tmpdir(), `evals-runs-${uid}`);
}

export interface GuardedRun {
  /** Tells the watchdog the CLI's pid (its process group), once it is spawned. */
  started(pid: number | undefined): void;
  /** The run is over (its processes are gone): forget it. */
  release(): void;
}

/**
 * Registers a run in flight: writes its lock file and hands it to the watchdog. `patterns` are the
 * run's redaction patterns, which the watchdog applies to the output folder if the owner dies.
 */
export function guardRun(run: {
  marker: string;
  outputDir: string;
  sandbox: string;
  patterns: readonly RegExp[];
}): GuardedRun {
  const dir = runLocksDir();
  const lockFile = join(dir, `${run.marker}.json`);
  // Should this process die, the watchdog kills the run's processes (its marker and, once started, the
  // CLI's process group), redacts its output folder, then deletes its sandbox and lock file.
  const guard = guardUntilExit({
    id: run.marker,
    marker: run.marker,
    group: true,
    redact: { dir: run.outputDir, patterns: run.patterns },
    remove: [run.sandbox, lockFile],
  });
  const watchdog = watchdogPid();
  const lock: RunLock = {
    version: LOCK_VERSION,
    marker: run.marker,
    owner_pid: process.pid,
    ...optionalStart(process.pid),
    hostname: hostname(),
    output_dir: run.outputDir,
    sandbox: run.sandbox,
    created_at: new Date().toISOString(),
    ...(watchdog !== undefined ? { watchdog_pid: watchdog } : {}),
  };
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(lockFile, `${JSON.stringify(lock, null, 2)}\n`, { mode: 0o600 });
  } catch {
    // Best effort: without its lock file the run is still guarded by the watchdog.
  }
  return {
    started(pid) {
      guard.started(pid);
    },
    release() {
      guard.release();
      rmSync(lockFile, { force: true });
    },
  };
}

function optionalStart(pid: number): { owner_started?: number } {
  const started = processStartTime(pid);
  return started === undefined ? {} : { owner_started: started };
}

/* Leftovers of earlier runs whose owner died. */

export interface LeftoverReport {
  /** Lock files of dead owners that were cleaned up. */
  runs: string[];
  /** Processes of those runs that were still running, and were killed. */
  processes: number[];
  /** Sandboxes deleted. */
  sandboxes: string[];
}

let sweep: Promise<LeftoverReport> | undefined;

/** cleanupLeftoverRuns, once per process (runAgent calls it before its first run). */
export function cleanupLeftoverRunsOnce(): Promise<LeftoverReport> {
  sweep ??= cleanupLeftoverRuns().catch(() => ({ runs: [], processes: [], sandboxes: [] }));
  return sweep;
}

/**
 * Cleans up after runs whose owner process died without cleaning up (SIGKILL of it and its
 * watchdog): kills their processes (only those that carry the run's marker), redacts their output
 * folders with the default redactor, deletes their sandboxes (only folders of ours in the temp
 * dir) and their lock files. Runs of live owners and of other hosts are left alone.
 */
export async function cleanupLeftoverRuns(): Promise<LeftoverReport> {
  const report: LeftoverReport = { runs: [], processes: [], sandboxes: [] };
  const dir = runLocksDir();
  if (!existsSync(dir) || !ownedByUs(dir)) return report;
  for (const entry of readdirSync(dir)) {
    if (!entry.endsWith(".json")) continue;
    const file = join(dir, entry);
    const lock = readLock(file);
    if (!lock || lock.hostname !== hostname() || ownerAlive(lock)) continue;
    // The owner's watchdog is still at work, with the run's own secrets to redact: leave it the run.
    if (lock.watchdog_pid !== undefined && isAlive(lock.watchdog_pid)) continue;
    report.processes.push(...(await killProcessTree(undefined, { marker: lock.marker, graceMs: 0 })));
    redactTreeSync(lock.output_dir, createRedactor());
    if (isOurSandbox(lock.sandbox) && existsSync(lock.sandbox)) {
      rmSync(lock.sandbox, { recursive: true, force: true, maxRetries: 3 });
      report.sandboxes.push(lock.sandbox);
    }
    rmSync(file, { force: true });
    report.runs.push(file);
  }
  return report;
}

/** A folder someone else made in the shared temp dir is not trusted. */
function ownedByUs(path: string): boolean {
  if (typeof process.getuid !== "function") return true;
  try {
    return statSync(path).uid === process.getuid();
  } catch {
    return false;
  }
}

function readLock(file: string): RunLock | undefined {
  try {
    const value = JSON.parse(readFileSync(file, "utf8")) as Partial<RunLock>;
    if (
      value.version !== LOCK_VERSION ||
      typeof value.marker !== "string" ||
      !/^[0-9a-f-]{36}$/.test(value.marker) ||
      typeof value.owner_pid !== "number" ||
      typeof value.hostname !== "string" ||
      typeof value.output_dir !== "string" ||
      typeof value.sandbox !== "string"
    ) {
      return undefined;
    }
    return value as RunLock;
  } catch {
    return undefined;
  }
}

function ownerAlive(lock: RunLock): boolean {
  if (lock.owner_pid === process.pid) return true;
  try {
    process.kill(lock.owner_pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  // The pid is taken: by the owner, unless it started at another time (a reused pid).
  const started = processStartTime(lock.owner_pid);
  return lock.owner_started === undefined || started === undefined || started === lock.owner_started;
}

/** Sandboxes are `evals-*` folders directly in the temp dir (see createSandbox). */
function isOurSandbox(path: string): boolean {
  const parent = resolve(path, "..");
  const name = path.slice(parent.length + 1);
  return parent === resolve(tmpdir()) && name.startsWith("evals-") && !name.includes(sep);
}
