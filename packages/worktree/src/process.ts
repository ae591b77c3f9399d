import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { guardUntilExit, WATCHDOG_MARKER_ENV } from "@evals/core/process";
import { registerExitCleanup } from "./exit-cleanup.js";

export interface RunProcessOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Kill the process (and its process group) after this many ms. */
  timeoutMs?: number;
  /** Kill the process when this signal aborts. */
  signal?: AbortSignal;
  /** Keep at most this many bytes of each of stdout and stderr (the tail). Default 1 MB. */
  maxOutputBytes?: number;
  /** Send stdout to this file descriptor instead of collecting it. */
  stdoutFd?: number;
  /** Run in a process group of its own and kill the whole group on timeout (for user commands). */
  ownProcessGroup?: boolean;
}

export interface ProcessResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** True when the output was longer than maxOutputBytes and only its tail was kept. */
  truncated: boolean;
  timedOut: boolean;
  aborted: boolean;
  durationMs: number;
  /** Set when the process could not be started (e.g. ENOENT). */
  spawnError?: Error;
}

const KILL_GRACE_MS = 2_000;

/**
 * Runs a program without a shell, stdin closed, and resolves (never rejects) with its exit status and
 * output. Every child is registered for clean-up, so an interrupted parent never leaves it running, and
 * with the parent-death watchdog of @evals/core, so neither does a SIGKILLed one.
 */
export function runProcess(file: string, args: readonly string[], options: RunProcessOptions = {}) {
  const started = performance.now();
  const maxBytes = options.maxOutputBytes ?? 1024 * 1024;
  return new Promise<ProcessResult>((resolve) => {
    // The watchdog hears of the process before it exists, by a marker in its environment: were this
    // process SIGKILLed between the spawn and the pid reaching the watchdog, the marker still finds it.
    const marker = randomUUID();
    const guard = guardUntilExit({ marker, group: options.ownProcessGroup === true });
    let child: ChildProcess;
    try {
      child = spawn(file, args, {
        cwd: options.cwd,
        env: { ...(options.env ?? process.env), [WATCHDOG_MARKER_ENV]: marker },
        stdio: ["ignore", options.stdoutFd ?? "pipe", "pipe"],
        detached: options.ownProcessGroup === true,
        windowsHide: true,
      });
    } catch (error) {
      guard.release();
      resolve(failedToStart(error, started));
      return;
    }
    const stdout = new TailBuffer(maxBytes);
    const stderr = new TailBuffer(maxBytes);
    child.stdout?.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk));

    let timedOut = false;
    let aborted = false;
    let forceTimer: NodeJS.Timeout | undefined;
    const kill = (signal: NodeJS.Signals) => killTree(child, signal, options.ownProcessGroup === true);
    const stop = () => {
      kill("SIGTERM");
      forceTimer ??= setTimeout(() => kill("SIGKILL"), KILL_GRACE_MS);
      forceTimer.unref();
    };
    const unregister = registerExitCleanup(() => kill("SIGKILL"), "kill");
    // A SIGKILL of this process runs no clean-up: the watchdog kills the child (its group) instead.
    guard.started(child.pid);
    const timer =
      options.timeoutMs !== undefined
        ? setTimeout(() => {
            timedOut = true;
            stop();
          }, options.timeoutMs)
        : undefined;
    const onAbort = () => {
      aborted = true;
      stop();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });

    let spawnError: Error | undefined;
    child.on("error", (error) => {
      spawnError = error;
    });
    child.on("close", (exitCode, signal) => {
      if (timer) clearTimeout(timer);
      if (forceTimer) clearTimeout(forceTimer);
      options.signal?.removeEventListener("abort", onAbort);
      // A user command's own children (servers, watchers) must not outlive it.
      if (options.ownProcessGroup) kill("SIGKILL");
      unregister();
      guard.release();
      resolve({
        exitCode,
        signal,
        stdout: stdout.text(),
        stderr: stderr.text(),
        truncated: stdout.truncated || stderr.truncated,
        timedOut,
        aborted,
        durationMs: performance.now() - started,
        ...(spawnError && child.pid === undefined ? { spawnError } : {}),
      });
    });
  });
}

/** Signals the child, or with `group` its whole process group (what it started, too). */
function killTree(child: ChildProcess, signal: NodeJS.Signals, group: boolean): void {
  if (child.pid === undefined) return;
  try {
    if (group) process.kill(-child.pid, signal);
    else if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  } catch {
    // Already gone.
  }
}

function failedToStart(error: unknown, started: number): ProcessResult {
  return {
    exitCode: null,
    signal: null,
    stdout: "",
    stderr: "",
    truncated: false,
    timedOut: false,
    aborted: false,
    durationMs: performance.now() - started,
    spawnError: error instanceof Error ? error : new Error(String(error)),
  };
}

/** Keeps the last `limit` bytes of a stream. */
class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  truncated = false;
  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size > this.limit * 2) this.compact();
  }

  text(): string {
    this.compact();
    return Buffer.concat(this.chunks).toString("utf8");
  }

  private compact(): void {
    if (this.size <= this.limit) return;
    const whole = Buffer.concat(this.chunks);
    this.chunks = [whole.subarray(whole.length - this.limit)];
    this.size = this.limit;
    this.truncated = true;
  }
}
