import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { isAlive } from "@evals/core/process";

/** Another process held the lock for longer than we waited. */
export class LockTimeoutError extends Error {
  constructor(
    readonly file: string,
    readonly holder: number | undefined,
  ) {
    super(`it is in use by another process${holder ? ` (pid ${holder})` : ""}: ${file}`);
    this.name = "LockTimeoutError";
  }
}

/**
 * Takes `file` as a lock (created exclusively, holding our pid), waiting while another live process
 * holds it; a lock left by a process that died (SIGKILL) is taken over. PGlite keeps its database in
 * one process's memory, so the processes of a machine take turns: open, write, close, release.
 * Returns the release function.
 */
export async function acquireLock(file: string, timeoutMs: number): Promise<() => void> {
  mkdirSync(dirname(file), { recursive: true });
  const deadline = Date.now() + timeoutMs;
  let wait = 20;
  for (;;) {
    try {
      const fd = openSync(file, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = lockHolder(file);
    if (holder !== undefined && !isAlive(holder)) {
      // Its holder is gone: remove it unless another process took it over in the meantime.
      if (lockHolder(file) === holder) rmSync(file, { force: true });
      continue;
    }
    if (Date.now() >= deadline) throw new LockTimeoutError(file, holder);
    await sleep(wait);
    wait = Math.min(wait * 2, 250);
  }
}

function lockHolder(file: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(file, "utf8"), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
