import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { WATCHDOG_MARKER_ENV } from "./watchdog.js";

/**
 * Finding and ending every process a run started. Killing the CLI's process group is not enough:
 * Claude Code's Bash tool starts each command in a session (and process group) of its own, so a
 * timed-out run would leave its shell commands behind. A run's processes are found two ways: by
 * walking the parent links down from the CLI, and (on Linux) by the marker variable every process
 * of the run inherits in its environment, which also finds processes already re-parented to init.
 */

export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
}

/** The name of the environment variable whose value marks every process of one run. */
export const RUN_MARKER_ENV = WATCHDOG_MARKER_ENV;

const hasProc = existsSync("/proc/self/stat");

/** A snapshot of the machine's processes (pid, parent, process group). */
export function listProcesses(): ProcessInfo[] {
  if (!hasProc) return listProcessesWithPs();
  const out: ProcessInfo[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // A zombie has already ended; it only waits for its parent to collect its status.
      if (fields[0] === "Z") continue;
      out.push({ pid: Number(entry), ppid: Number(fields[1]), pgid: Number(fields[2]) });
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

function listProcessesWithPs(): ProcessInfo[] {
  const ps = spawnSync("ps", ["-A", "-o", "pid=,ppid=,pgid="], { encoding: "utf8" });
  return (ps.stdout ?? "")
    .split("\n")
    .map((line) => line.trim().split(/\s+/).map(Number))
    .filter((fields) => fields.length === 3 && fields.every(Number.isFinite))
    .map(([pid, ppid, pgid]) => ({ pid: pid!, ppid: ppid!, pgid: pgid! }));
}

/**
 * The processes of one run: `root` (when alive), its descendants and, on Linux, every process
 * whose environment carries the run's marker. Never includes the calling process.
 */
export function runProcesses(root: number | undefined, marker?: string): ProcessInfo[] {
  const all = listProcesses();
  const found = new Map<number, ProcessInfo>();
  if (root !== undefined) {
    const children = new Map<number, ProcessInfo[]>();
    for (const proc of all) {
      const list = children.get(proc.ppid) ?? [];
      list.push(proc);
      children.set(proc.ppid, list);
    }
    const queue = all.filter((proc) => proc.pid === root);
    while (queue.length > 0) {
      const proc = queue.pop()!;
      if (found.has(proc.pid)) continue;
      found.set(proc.pid, proc);
      queue.push(...(children.get(proc.pid) ?? []));
    }
  }
  if (marker && hasProc) {
    for (const proc of all) {
      if (!found.has(proc.pid) && carriesMarker(proc.pid, marker)) found.set(proc.pid, proc);
    }
  }
  found.delete(process.pid);
  return [...found.values()];
}

function carriesMarker(pid: number, marker: string): boolean {
  try {
    // Entries are NUL-terminated; the first one has no NUL before it, so add one.
    const environ = `\0${readFileSync(`/proc/${pid}/environ`, "latin1")}`;
    return environ.includes(`\0${RUN_MARKER_ENV}=${marker}\0`);
  } catch {
    return false;
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Already gone, or not ours.
  }
}

/** Signals every process and every process group of the set (never our own group). */
function signalAll(procs: ProcessInfo[], sig: NodeJS.Signals): void {
  const ownGroup = hasProc ? listOwnGroup() : undefined;
  const groups = new Set(procs.map((proc) => proc.pgid).filter((pgid) => pgid > 1 && pgid !== ownGroup));
  for (const pgid of groups) signal(-pgid, sig);
  for (const proc of procs) signal(proc.pid, sig);
}

function listOwnGroup(): number | undefined {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
  } catch {
    return undefined;
  }
}

export interface KillTreeOptions {
  /** The run's marker (see RUN_MARKER_ENV), to find processes that left the tree. */
  marker?: string;
  /** How long processes get to exit after SIGTERM before SIGKILL (default 2000 ms). */
  graceMs?: number;
}

/**
 * Ends a run's whole process tree: SIGTERM to every process and process group, a grace period,
 * then SIGSTOP (so nothing forks while we look) and SIGKILL until nothing of the run is left.
 * Processes seen once stay targeted after their parent dies (they are re-parented then).
 * Returns the pids that were signalled.
 */
export async function killProcessTree(
  root: number | undefined,
  options: KillTreeOptions = {},
): Promise<number[]> {
  const graceMs = options.graceMs ?? 2000;
  const known = new Map<number, ProcessInfo>();
  const current = (): ProcessInfo[] => {
    const alive = new Map(listProcesses().map((proc) => [proc.pid, proc]));
    for (const proc of runProcesses(root, options.marker)) known.set(proc.pid, proc);
    return [...known.values()].filter((proc) => alive.has(proc.pid));
  };
  let procs = current();
  if (procs.length === 0) return [];
  signalAll(procs, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (procs.length > 0 && Date.now() < deadline) {
    await sleep(Math.min(50, Math.max(1, deadline - Date.now())));
    procs = current();
  }
  for (let round = 0; procs.length > 0 && round < 20; round++) {
    signalAll(procs, "SIGSTOP");
    signalAll(current(), "SIGKILL");
    await sleep(20);
    procs = current();
  }
  return [...known.keys()];
}

/**
 * When a process started (Linux: clock ticks since boot, from /proc/<pid>/stat), to tell it from a
 * later process that got the same pid. Undefined where it cannot be read.
 */
export function processStartTime(pid: number): number | undefined {
  if (!hasProc) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 22 (starttime); fields after "comm" start at field 3.
    const value = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
    return Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process is still alive (a zombie waiting for its parent counts as gone). */
export function isAlive(pid: number): boolean {
  if (hasProc) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, but belongs to another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
