import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Nothing a process started outlives it, even when it is SIGKILLed: a watchdog process
 * (lib/watchdog.cjs, one per process, started with the first guarded work) holds a pipe from this
 * process; when the pipe closes (this process died) it kills what is still in flight, redacts the
 * folders and deletes the paths it was given, and exits.
 */

/** The environment variable whose value is an entry's `marker` in the processes it must kill. */
export const WATCHDOG_MARKER_ENV = "EVALS_RUN_MARKER";

export interface WatchdogEntry {
  /** The entry's id (default: a random one). */
  id?: string;
  /** A process to kill (it can be given later, through `started`). */
  pid?: number;
  /** Kill `pid`'s whole process group (it was spawned `detached`), not only `pid`. */
  group?: boolean;
  /**
   * Kill every process whose environment has EVALS_RUN_MARKER=<marker> (WATCHDOG_MARKER_ENV). Set it
   * in the environment of what you spawn and guard before spawning: a process killed between its
   * spawn and `started` leaves nothing behind.
   */
  marker?: string;
  /** Redact this folder with these patterns, after the kill. */
  redact?: { dir: string; patterns: readonly RegExp[] };
  /** Delete these files and folders, last. */
  remove?: readonly string[];
}

export interface WatchdogGuard {
  /** Tells the watchdog the process to kill (with `group`, its process group), once it is spawned. */
  started(pid: number | undefined): void;
  /** The work is over (its processes are gone): forget it. */
  release(): void;
}

/**
 * Hands work in flight to this process's watchdog, which cleans it up should this process die
 * without doing so. Best effort: where the watchdog cannot start, the guard does nothing.
 */
export function guardUntilExit(entry: WatchdogEntry): WatchdogGuard {
  const id = entry.id ?? randomUUID();
  tell({
    add: {
      id,
      ...(entry.pid !== undefined ? { pid: entry.pid } : {}),
      ...(entry.group ? { group: true } : {}),
      ...(entry.marker !== undefined ? { marker: entry.marker } : {}),
      ...(entry.redact
        ? {
            redact: {
              dir: entry.redact.dir,
              patterns: entry.redact.patterns.map((pattern) => ({
                source: pattern.source,
                flags: pattern.flags,
              })),
            },
          }
        : {}),
      ...(entry.remove ? { remove: [...entry.remove] } : {}),
    },
  });
  return {
    started(pid) {
      if (pid !== undefined) tell({ pid: { id, pid } });
    },
    release() {
      tell({ remove: id });
    },
  };
}

/** The watchdog's pid, when one runs (for lock files, tests and diagnostics). */
export function watchdogPid(): number | undefined {
  return watchdog && watchdog.exitCode === null && watchdog.signalCode === null ? watchdog.pid : undefined;
}

let watchdog: ChildProcess | undefined;

/**
 * lib/watchdog.cjs, from src/ or dist/ (both one level down), in the ESM and the CommonJS build
 * (tsup's shims give the CommonJS build its import.meta.url).
 */
function watchdogScript(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  return join(here, "..", "lib", "watchdog.cjs");
}

function tell(message: unknown): void {
  const child = startWatchdog();
  if (!child?.stdin || child.stdin.destroyed) return;
  child.stdin.write(`${JSON.stringify(message)}\n`);
}

function startWatchdog(): ChildProcess | undefined {
  if (watchdog && watchdog.exitCode === null && watchdog.signalCode === null) return watchdog;
  const script = watchdogScript();
  if (!existsSync(script)) return undefined;
  const child = spawn(process.execPath, [script], {
    // Its own process group: a Ctrl-C or a kill of our group does not take it down with us.
    detached: true,
    stdio: ["pipe", "ignore", "ignore"],
    env: { PATH: process.env.PATH ?? "" },
  });
  child.on("error", () => undefined);
  child.stdin?.on("error", () => undefined);
  // Neither the watchdog nor its pipe keeps this process alive.
  child.unref();
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  watchdog = child;
  return child;
}
