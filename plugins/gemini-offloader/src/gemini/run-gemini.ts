import { type ChildProcess, spawn } from "node:child_process";
import { type Diagnostic, diagnoseFailure, makeDiagnostic, timeoutDiagnostic } from "./diagnose.js";

export interface ProcessRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  durationMs: number;
  /** Set when the executable could not be started at all. */
  spawnError: string | null;
}

export interface ProcessOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Text written to Gemini's stdin (then closed); without it stdin is /dev/null. */
  stdin?: string | null;
  timeoutMs: number;
}

const STDOUT_LIMIT = 64 * 1024 * 1024;
const STDERR_KEEP = 64 * 1024;
/** After the kill, how long to wait for the pipes to close before giving up on them. */
const CLOSE_GRACE_MS = 2_000;

/** Process groups of the Gemini runs still going, so a signal to the script can stop them too. */
const runningGroups = new Set<number>();

/**
 * Kills every Gemini process group this script started. Gemini runs detached (its own group), so
 * a Ctrl-C or a Bash-tool timeout that stops the script would otherwise leave it running.
 */
export function killRunningGemini(): void {
  for (const pid of runningGroups) killGroup(pid);
  runningGroups.clear();
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

/**
 * Runs Gemini with a hard timeout. Gemini starts in a process group of its own (it may relaunch
 * itself as a child, and its parent ignores SIGTERM), so on timeout the whole group gets SIGKILL.
 */
export function runProcess(bin: string, args: string[], options: ProcessOptions): Promise<ProcessRun> {
  const started = Date.now();
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn(bin, args, {
        cwd: options.cwd,
        env: options.env,
        detached: true,
        stdio: [options.stdin != null ? "pipe" : "ignore", "pipe", "pipe"],
      });
    } catch (error) {
      resolve(failedToStart(error, started));
      return;
    }
    const pid = child.pid;
    if (pid !== undefined) runningGroups.add(pid);

    let stdout = "";
    let stderr = "";
    let timedOut = false;
    let settled = false;
    let graceTimer: NodeJS.Timeout | undefined;
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      if (stdout.length < STDOUT_LIMIT) stdout += chunk;
    });
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_KEEP);
    });
    if (options.stdin != null && child.stdin) {
      child.stdin.on("error", () => {
        // Gemini may exit before reading all of stdin (EPIPE): its exit code tells what happened.
      });
      child.stdin.end(options.stdin);
    }

    const finish = (run: Omit<ProcessRun, "durationMs">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(graceTimer);
      if (pid !== undefined) runningGroups.delete(pid);
      resolve({ ...run, durationMs: Date.now() - started });
    };
    const timer = setTimeout(() => {
      timedOut = true;
      if (pid !== undefined) killGroup(pid);
      graceTimer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish({ exitCode: null, stdout, stderr, timedOut, spawnError: null });
      }, CLOSE_GRACE_MS);
    }, options.timeoutMs);

    child.on("error", (error) => {
      if (pid !== undefined) killGroup(pid);
      finish({ exitCode: null, stdout, stderr, timedOut, spawnError: error.message });
    });
    child.on("close", (code) => {
      // The group may still hold children when the leader exits: stop them with it.
      if (pid !== undefined) killGroup(pid);
      finish({ exitCode: timedOut ? null : code, stdout, stderr, timedOut, spawnError: null });
    });
  });
}

function failedToStart(error: unknown, started: number): ProcessRun {
  return {
    exitCode: null,
    stdout: "",
    stderr: "",
    timedOut: false,
    durationMs: Date.now() - started,
    spawnError: (error as Error).message,
  };
}

export interface PromptRequest {
  bin: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  prompt: string;
  model?: string | null;
  includeDirs?: string[];
  yolo?: boolean;
  /** A Gemini session id to resume. */
  resume?: string | null;
  /** Context piped to Gemini's stdin (Gemini puts it before the prompt). */
  context?: string | null;
  timeoutMs: number;
}

export type PromptResult =
  | {
      ok: true;
      sessionId: string | null;
      response: string;
      /** The model that answered (the main one, not the router). */
      model: string | null;
      durationMs: number;
    }
  | { ok: false; diagnostic: Diagnostic; sessionId: string | null; durationMs: number };

/** The arguments of one headless prompt: JSON output, and the options the scripts pass through. */
export function promptArgs(request: Omit<PromptRequest, "bin" | "cwd" | "env" | "timeoutMs">): string[] {
  const args = [`--prompt=${request.prompt}`, "--output-format", "json"];
  if (request.model) args.push("--model", request.model);
  if (request.includeDirs?.length) args.push("--include-directories", request.includeDirs.join(","));
  if (request.yolo) args.push("--yolo");
  if (request.resume) args.push("--resume", request.resume);
  return args;
}

/** Sends one prompt to Gemini and reads its JSON answer, or says why there is none. */
export async function runPrompt(request: PromptRequest): Promise<PromptResult> {
  const run = await runProcess(request.bin, promptArgs(request), {
    cwd: request.cwd,
    env: request.env,
    stdin: request.context ?? null,
    timeoutMs: request.timeoutMs,
  });
  const base = { durationMs: run.durationMs };
  if (run.timedOut)
    return { ok: false, diagnostic: timeoutDiagnostic(request.timeoutMs), sessionId: null, ...base };
  if (run.spawnError) {
    return {
      ok: false,
      diagnostic: makeDiagnostic("unknown", `Could not start ${request.bin}: ${run.spawnError}`),
      sessionId: null,
      ...base,
    };
  }
  if (run.exitCode !== 0) {
    const diagnostic = diagnoseFailure(run.exitCode, run.stderr);
    return { ok: false, diagnostic, sessionId: sessionIdIn(run.stderr), ...base };
  }
  const answer = parseAnswer(run.stdout);
  if (!answer) {
    return {
      ok: false,
      diagnostic: makeDiagnostic("unknown", "Gemini exited normally but printed no JSON answer.", {
        exitCode: run.exitCode,
      }),
      sessionId: null,
      ...base,
    };
  }
  if (!answer.response.trim()) {
    // Gemini ends a turn without text when it stops itself (its loop detection, a blocked answer).
    return {
      ok: false,
      diagnostic: makeDiagnostic(
        "unknown",
        "Gemini returned an empty answer (it may have stopped the turn itself).",
        {
          exitCode: run.exitCode,
        },
      ),
      sessionId: answer.sessionId,
      ...base,
    };
  }
  return { ok: true, ...answer, model: answer.model ?? request.model ?? null, ...base };
}

function parseAnswer(
  stdout: string,
): { sessionId: string | null; response: string; model: string | null } | null {
  let data: { session_id?: unknown; response?: unknown; stats?: { models?: Record<string, unknown> } };
  try {
    data = JSON.parse(stdout.trim());
  } catch {
    return null;
  }
  if (typeof data.response !== "string") return null;
  return {
    sessionId: typeof data.session_id === "string" ? data.session_id : null,
    response: data.response,
    model: mainModel(data.stats?.models),
  };
}

/** The model whose role was `main` in Gemini's stats (the router's model has `utility_router`). */
function mainModel(models: Record<string, unknown> | undefined): string | null {
  if (!models) return null;
  const entries = Object.entries(models) as Array<[string, { roles?: Record<string, unknown> }]>;
  const main = entries.find(([, stats]) => stats?.roles && "main" in stats.roles);
  if (main) return main[0];
  const notRouter = entries.find(
    ([, stats]) => !stats?.roles || Object.keys(stats.roles).some((role) => role !== "utility_router"),
  );
  return notRouter?.[0] ?? null;
}

function sessionIdIn(stderr: string): string | null {
  const match = /"session_id":\s*"([0-9a-f-]{36})"/.exec(stderr);
  return match?.[1] ?? null;
}
