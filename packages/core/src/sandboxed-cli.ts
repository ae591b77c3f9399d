import { spawn } from "node:child_process";
import type { Writable } from "node:stream";
import { killProcessTree, type ProcessInfo, runProcesses } from "./process-tree.js";

/** Why spawnSandboxedCli itself stopped a CLI: its time was up, or its AbortSignal fired. */
export type CliStopReason = { kind: "timeout" } | { kind: "aborted" };

export interface SandboxedCliOptions {
  bin: string;
  args: readonly string[];
  cwd: string;
  /** The CLI's complete environment: nothing of this process's environment is added. */
  env: Record<string, string>;
  /** Written to the CLI's stdin, which is then closed. */
  input?: string;
  /** Keep stdin open for the caller to write to (`stdin`); without it or `input`, stdin is closed. */
  feedStdin?: boolean;
  /** Each non-blank stdout line as it arrives (without its newline). */
  onLine?: (line: string) => void;
  /** Stop the CLI (`{ kind: "timeout" }`) after this long. */
  timeoutMs: number;
  /** Aborting stops the CLI (`{ kind: "aborted" }`). */
  signal?: AbortSignal;
  /** Between SIGTERM and SIGKILL when the CLI is stopped (default 2000 ms). */
  killGraceMs?: number;
  /**
   * The run's marker (RUN_MARKER_ENV in `env`): stopping kills every process that carries it too,
   * and whatever still carries it once the CLI has exited is killed and listed in `leftovers`.
   */
  marker?: string;
  /** How much of stderr to keep, its end (default 10 MiB). */
  stderrLimit?: number;
}

/** A running CLI. */
export interface SandboxedCli<Stop extends { kind: string }> {
  /** Also its process group id (it runs detached); undefined when it could not be started. */
  readonly pid: number | undefined;
  /** Its stdin, with `feedStdin` (a write after the CLI exited is ignored). */
  readonly stdin: Writable | undefined;
  /** The first reason it was stopped for, once it was. */
  readonly stopped: Stop | CliStopReason | undefined;
  /** Ends the CLI and every process it started (the first reason given is kept). */
  stop(why: Stop | CliStopReason): void;
  /** Settles once the CLI has exited and nothing of it is left running. */
  readonly exited: Promise<SandboxedCliExit<Stop>>;
}

export interface SandboxedCliExit<Stop extends { kind: string }> {
  exitCode: number | null;
  /** The signal that ended it, when one did. */
  signal?: NodeJS.Signals;
  stderr: string;
  stopped?: Stop | CliStopReason;
  /** Why it could not be started, in one short line (e.g. "spawn E2BIG", "spawn /x ENOENT"). */
  spawnError?: string;
  /** Processes carrying the marker that were still running after it exited (they were killed). */
  leftovers: ProcessInfo[];
}

/**
 * The longest prompt a runner passes as one argument, below the kernel's 128 KiB for one (a longer
 * one fails to spawn with E2BIG): a longer prompt goes in on stdin (`input`).
 */
export const MAX_PROMPT_ARG_BYTES = 100 * 1024;

const DEFAULT_STDERR_LIMIT = 10 * 1024 * 1024;
/** How long the pipes may stay open after the exit (a leftover without the marker can hold them). */
const CLOSE_WAIT_MS = 2000;

/**
 * Starts an agent CLI the way every runner does: detached (its own process group, never tied to our
 * terminal), with exactly `env`, stdout split into lines, stderr kept, a timeout and an abort signal
 * that end its whole process tree, and nothing of it left running once `exited` settles.
 */
export function spawnSandboxedCli<Stop extends { kind: string } = CliStopReason>(
  options: SandboxedCliOptions,
): SandboxedCli<Stop> {
  let stopped: Stop | CliStopReason | undefined;
  let stopping: Promise<unknown> | undefined;
  let spawnError: string | undefined;
  let child: ReturnType<typeof spawn> | undefined;
  try {
    child = spawn(options.bin, options.args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: [options.input !== undefined || options.feedStdin ? "pipe" : "ignore", "pipe", "pipe"],
    });
  } catch (error) {
    // E2BIG and other errors of the spawn itself are thrown, not emitted.
    spawnError = spawnProblem(error);
  }
  const pid = child?.pid;
  const killOptions = {
    graceMs: options.killGraceMs ?? 2000,
    ...(options.marker !== undefined ? { marker: options.marker } : {}),
  };
  const stop = (why: Stop | CliStopReason) => {
    stopped ??= why;
    if (pid !== undefined) stopping ??= killProcessTree(pid, killOptions);
  };
  if (!child) {
    return {
      pid,
      stdin: undefined,
      stopped,
      stop,
      exited: Promise.resolve({
        exitCode: null,
        stderr: "",
        ...(spawnError ? { spawnError } : {}),
        leftovers: [],
      }),
    };
  }
  const running = child;
  running.stdin?.on("error", () => {
    // The CLI exited before reading everything; its exit says what happened.
  });
  if (options.input !== undefined) running.stdin?.end(options.input);

  let stderr = "";
  const stderrLimit = options.stderrLimit ?? DEFAULT_STDERR_LIMIT;
  running.stderr?.setEncoding("utf8");
  running.stderr?.on("data", (text: string) => {
    stderr += text;
    if (stderr.length > stderrLimit) stderr = stderr.slice(-stderrLimit);
  });
  let pending = "";
  const take = (line: string) => {
    if (line.trim() !== "") options.onLine?.(line);
  };
  // The decoder keeps a character split across two chunks whole.
  running.stdout?.setEncoding("utf8");
  running.stdout?.on("data", (text: string) => {
    pending += text;
    for (let newline = pending.indexOf("\n"); newline >= 0; newline = pending.indexOf("\n")) {
      take(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
    }
  });

  const timer = setTimeout(() => stop({ kind: "timeout" }), options.timeoutMs);
  const onAbort = () => stop({ kind: "aborted" });
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener("abort", onAbort, { once: true });

  const closed = new Promise<void>((done) => running.on("close", () => done()));
  const exited = new Promise<SandboxedCliExit<Stop>>((done) => {
    running.on("error", (error) => {
      // Only a failed spawn ends the wait here; a failed kill or write changes nothing.
      if (running.pid !== undefined) return;
      spawnError = spawnProblem(error);
      done(finish(null, null));
    });
    running.on("exit", (code, signal) => done(finish(code, signal)));
  });

  async function finish(code: number | null, signal: NodeJS.Signals | null): Promise<SandboxedCliExit<Stop>> {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
    if (stopping) await stopping;
    // Whatever the CLI left running (background shells, servers) goes too: nothing outlives a run.
    const leftovers = options.marker ? runProcesses(undefined, options.marker) : [];
    if (leftovers.length > 0) await killProcessTree(undefined, { marker: options.marker!, graceMs: 500 });
    await Promise.race([closed, new Promise((done) => setTimeout(done, CLOSE_WAIT_MS).unref())]);
    running.stdout?.destroy();
    running.stderr?.destroy();
    take(pending);
    pending = "";
    return {
      exitCode: code,
      ...(signal ? { signal } : {}),
      stderr,
      ...(stopped ? { stopped } : {}),
      ...(spawnError ? { spawnError } : {}),
      leftovers,
    };
  }

  return {
    pid,
    stdin: options.feedStdin ? (running.stdin ?? undefined) : undefined,
    get stopped() {
      return stopped;
    },
    stop,
    exited,
  };
}

/**
 * Why the CLI could not be started, in one short line: the system's error code and message (E2BIG:
 * an argument too long, ENOENT, EACCES), never the whole command line.
 */
function spawnProblem(error: unknown): string {
  const { code, message } = error as { code?: unknown; message?: unknown };
  const text = typeof message === "string" ? message : String(error);
  const prefix = typeof code === "string" && !text.includes(code) ? `${code}: ` : "";
  const line = `${prefix}${text.split("\n")[0]}`;
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
