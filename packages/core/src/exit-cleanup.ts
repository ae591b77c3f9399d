/**
 * Synchronous clean-up that must run even when the process is interrupted: on SIGINT, SIGTERM and
 * SIGHUP it runs every registered clean-up and then re-raises the signal (so the process still dies
 * of it, with the usual exit status); on `exit` (process.exit, end of the event loop) it runs them too.
 *
 * One listener per event is installed while at least one clean-up is registered and removed when the
 * last one is unregistered, so any number of trials never leaks listeners.
 */

/**
 * `kill` clean-ups (stop child processes) run first, then `save` (keep what a trial did), then
 * `remove` (delete worktrees).
 */
export type CleanupPhase = "kill" | "save" | "remove";
const PHASE_ORDER: Record<CleanupPhase, number> = { kill: 0, save: 1, remove: 2 };

interface Entry {
  phase: CleanupPhase;
  run: (reason: NodeJS.Signals | "exit") => void;
}

const SIGNALS: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
const entries = new Set<Entry>();
let installed = false;

/** Registers a synchronous clean-up; returns the function that unregisters it. */
export function registerExitCleanup(
  run: (reason: NodeJS.Signals | "exit") => void,
  phase: CleanupPhase = "remove",
): () => void {
  const entry: Entry = { phase, run };
  entries.add(entry);
  install();
  return () => {
    entries.delete(entry);
    if (entries.size === 0) uninstall();
  };
}

/** How many clean-ups are registered (for tests and diagnostics). */
export function pendingExitCleanups(): number {
  return entries.size;
}

function runAll(reason: NodeJS.Signals | "exit"): void {
  const ordered = [...entries].sort((a, b) => PHASE_ORDER[a.phase] - PHASE_ORDER[b.phase]);
  entries.clear();
  for (const entry of ordered) {
    try {
      entry.run(reason);
    } catch {
      // Best effort: one failed clean-up must not stop the others.
    }
  }
}

function onSignal(signal: NodeJS.Signals): void {
  runAll(signal);
  uninstall();
  // With no other listener left, the default action applies again: die of the same signal.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

function onExit(): void {
  runAll("exit");
}

function install(): void {
  if (installed) return;
  installed = true;
  for (const signal of SIGNALS) process.on(signal, onSignal);
  process.on("exit", onExit);
}

function uninstall(): void {
  if (!installed) return;
  installed = false;
  for (const signal of SIGNALS) process.off(signal, onSignal);
  process.off("exit", onExit);
}
