import { randomUUID } from "node:crypto";
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import {
  type AgentRunOptions,
  type AgentRunResult,
  assertRunId,
  type CapturedEvent,
  createRedactor,
  finalResult,
  type LiveRunFields,
  liveRunResult,
  newRunId,
  outputRoot,
  type Redactor,
  RUN_FOLDER_FILES,
  type Run,
  type RunFolderAgent,
  type RunNote,
  redactTreeSync,
  registerExitCleanup,
  rememberSecrets,
  runFolderPath,
  runOutcome,
  writeRunFolder,
} from "@evals/core";
import {
  cleanupLeftoverRunsOnce,
  createSandbox,
  type GuardedRun,
  guardRun,
  isLoopbackUrl,
  keepOrRemoveSandbox,
  runProcesses,
  spawnSandboxedCli,
} from "@evals/core/process";
import {
  type ClaudeSettings,
  describeLostEvents,
  EVENTS_FILE,
  type HookCollector,
  hookSettings,
  httpHookSettings,
  lostHookEvents,
  readEvents,
  readHookErrors,
  STREAM_GAP_HOOK_EVENTS,
  STREAM_GAP_TOOL_MATCHER,
  startHookCollector,
  supportsHttpHooks,
  TRANSCRIPT_HOOK_EVENTS,
} from "@evals/hooks";
import { claudeArgs, userMessageLine } from "./claude-args.js";
import { claudeAvailable, findClaude } from "./claude-bin.js";
import { cliConfigDir, hermeticEnv } from "./claude-env.js";
import type { ClaudeCodeOptions } from "./options.js";
import { reconcileRun } from "./reconcile.js";
import { findTranscript, transcriptEvents } from "./transcript.js";

/**
 * Everything runAgent accepts: the options every runner shares (@evals/core's AgentRunOptions) and
 * Claude Code's own (ClaudeCodeOptions), flat.
 */
export interface RunAgentOptions extends AgentRunOptions, ClaudeCodeOptions {
  /** Called with each stream-json line as it arrives (as the CLI printed it, not redacted). */
  onStreamLine?: (line: Record<string, unknown>) => void;
}

/** A @evals/core AgentRunResult, plus what helps to reproduce or debug the run. */
export interface RunAgentResult extends AgentRunResult, LiveRunFields {
  /** The CLI's process id, which is also its process group id (it ran detached). */
  pid?: number;
  /**
   * Why the run's record is incomplete, when it is: its capture lost hook events the CLI fired. The
   * engine does not grade such a run (its trial errors with this); `error` says it too.
   */
  incomplete?: string;
  /**
   * Where the time went: preparing the run (sandbox, settings), the CLI from spawn to exit, and
   * afterwards (reading the capture, reconciling, cleaning up). setup + finish is what runAgent adds.
   */
  timings?: { setup_ms: number; cli_ms: number; finish_ms: number };
}

const DEFAULT_TIMEOUT_MS = 300_000;

/**
 * Runs the real `claude` CLI headless on one prompt (or conversation) and returns what happened as
 * a normalized Run. The run is hermetic: its own TEST_RUN_ID and output folder, a fresh config
 * dir, HOME and TMPDIR, no inherited environment beyond PATH/locale/proxy/certs, no telemetry
 * traffic, the prompt on stdin. A timeout or abort ends the CLI and every process it started.
 *
 * Throws only when the run could not start (no claude executable, bad options); everything that
 * goes wrong once the CLI runs is reported in the result.
 */
export async function runAgent(options: RunAgentOptions): Promise<RunAgentResult> {
  const entered = performance.now();
  const prompts = Array.isArray(options.prompt) ? options.prompt : [options.prompt];
  const runId = options.runId ?? newRunId("run");
  assertRunId(runId, "runAgent runId");
  const cwd = resolve(options.cwd ?? process.cwd());
  // From the agent's workspace first, as the other runners: a project's own claude wins over the caller's.
  const bin = findClaude({
    ...(options.claudeBin ? { claudeBin: options.claudeBin } : {}),
    from: cwd,
    alsoFrom: [process.cwd()],
  });
  const outputRootDir = resolve(options.outputRoot ?? outputRoot());
  const outputDir = runFolderPath(runId, outputRootDir);
  mkdirSync(outputDir, { recursive: true });
  const capture = captureModeOf(options.capture, bin);
  // Leftovers of earlier runs whose process was killed go first (once per process).
  await cleanupLeftoverRunsOnce();

  const sandbox = createSandbox(runId);
  const marker = randomUUID();
  const base = baseSettings(options.settings);
  const collector =
    capture === "http" ? await startHookCollector({ runId, outputRoot: outputRootDir }) : undefined;
  const settingsFile = writeSettings(
    sandbox.root,
    options.settings,
    captureSettings(base, collector, capture),
  );
  const args = claudeArgs({
    ...options,
    prompts,
    ...(settingsFile ? { settingsFile } : {}),
    // The stream's hook_started lines tell how many events fired, so a lost one is seen.
    ...(capture ? { includeHookEvents: true } : {}),
  });
  const env = hermeticEnv({
    sandbox,
    runId,
    outputRoot: outputRootDir,
    marker,
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    ...(options.apiKey ? { apiKey: options.apiKey } : {}),
    isSandbox: needsIsSandbox(options),
    ...(options.env ? { env: options.env } : {}),
  });
  // The case's own env (agent.env) is secret whatever its names; the rest of the env by name.
  const redaction = { ...options.redact, env, ...(options.env ? { secretEnv: options.env } : {}) };
  const redactor = createRedactor(redaction);
  // Later writers of this process (the case's run folder record, reports, OTel) leave them out too.
  rememberSecrets(redaction);
  const guard = guardRun({ marker, outputDir, sandbox: sandbox.root, patterns: redactor.patterns });

  const started = performance.now();
  const multiTurn = prompts.length > 1;
  const lines: unknown[] = [];
  const parseNotes: RunNote[] = [];
  const streamFile = createWriteStream(join(outputDir, RUN_FOLDER_FILES.stream));
  const cli = spawnSandboxedCli({
    bin,
    args,
    cwd,
    env,
    // The prompt goes on stdin (an argument over 128 KiB fails with E2BIG); a conversation's turns
    // too, one stream-json line each.
    ...(multiTurn ? { feedStdin: true } : { input: prompts[0]! }),
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.killGraceMs !== undefined ? { killGraceMs: options.killGraceMs } : {}),
    marker,
    onLine: (text) => {
      streamFile.write(`${redactor.text(text)}\n`);
      let line: unknown;
      try {
        line = JSON.parse(text);
      } catch {
        parseNotes.push({ kind: "parse_error", message: `stdout line is not JSON: ${text.slice(0, 200)}` });
        return;
      }
      lines.push(line);
      if (line && typeof line === "object") {
        options.onStreamLine?.(line as Record<string, unknown>);
        if ((line as { type?: unknown }).type === "result") feedNext();
      }
    },
  });
  const pid = cli.pid;
  guard.started(pid);
  const untrackRun = trackRun({ pid, marker, outputDir, sandboxRoot: sandbox.root, redactor, guard });

  // Multi-turn: the first prompt now, each next one when the previous turn's result arrives,
  // then stdin is closed so the CLI ends after the last turn.
  let nextPrompt = 0;
  function feedNext(): void {
    const stdin = cli.stdin;
    if (!stdin || stdin.destroyed) return;
    if (nextPrompt < prompts.length) stdin.write(userMessageLine(prompts[nextPrompt++]!));
    if (nextPrompt >= prompts.length) stdin.end();
  }
  feedNext();

  const outcome = await cli.exited;
  const exited = performance.now();
  // The CLI waited for every answer: nothing more comes once it has exited.
  await collector?.close();
  await new Promise<void>((done) => streamFile.end(done));
  const { leftovers } = outcome;
  const timedOut = outcome.stopped?.kind === "timeout";
  const aborted = outcome.stopped?.kind === "aborted";
  untrackRun();
  guard.release();
  // The hook wrote what the agent printed, secrets included: redacted here, off the hook's hot path.
  redactTreeSync(outputDir, redactor);

  const captured = await readCaptured(outputDir);
  // The sandbox's config dir, unless the caller's env points the CLI at another one.
  const transcript = capture
    ? readTranscript(cliConfigDir(env, cwd), lines, { cwd, runId, keepsNoSession: args.includes(NO_SESSION) })
    : undefined;
  const hookEvents = mergeByTime(captured.events, transcript?.events ?? []);
  const run: Run = reconcileRun({
    streamLines: lines,
    hookEvents: hookEvents.map((line) => line.event),
    hookTimestamps: hookEvents.map((line) => line.captured_at),
    ...(capture ? { hookCoverage: RUN_AGENT_CAPTURE } : {}),
    prompts: multiTurn ? [] : prompts,
    runId,
  });
  run.notes.push(...parseNotes, ...captured.notes);
  if (leftovers.length > 0) {
    run.notes.push({
      kind: "other",
      message: `the CLI left ${leftovers.length} process(es) running after it exited; they were killed (pids ${leftovers.map((proc) => proc.pid).join(", ")})`,
    });
  }

  const { exitCode } = outcome;
  const stderr = outcome.stderr.trim();
  const incomplete =
    lostEventsFailure(capture, {
      lines,
      captured: captured.events,
      ...(collector ? { collectorFailed: collector.failed } : {}),
      base,
      options,
      outputDir,
    }) ?? transcript?.failure;
  const error =
    describeFailure({
      run,
      timedOut,
      aborted,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      exitCode,
      signal: outcome.signal,
      spawnError: outcome.spawnError,
      stderr,
      ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    }) ?? incomplete;
  const keepSandbox = keepOrRemoveSandbox(sandbox.root, options.keepSandbox, error !== undefined, redactor);
  const result: RunAgentResult = redactor.value<RunAgentResult>({
    ...liveRunResult({
      runId,
      outputDir,
      run,
      exitCode,
      timedOut,
      entered,
      stderr,
      command: [bin, ...args],
      ...(keepSandbox ? { sandboxDir: sandbox.root } : {}),
      error,
    }),
    ...(pid !== undefined ? { pid } : {}),
    ...(incomplete ? { incomplete } : {}),
    timings: {
      setup_ms: round(started - entered),
      cli_ms: round(exited - started),
      finish_ms: round(performance.now() - exited),
    },
  });
  // A multi-turn stream echoes its prompts; only a -p prompt must be told to a reader of the stream.
  writeRunFolder(outputDir, runId, {
    result,
    agent: redactor.value(agentSettingsOf(options, multiTurn ? [] : prompts)),
  });
  return result;
}

/** The options the run used that grading it again needs (approval-gate reads the permissions). */
function agentSettingsOf(options: RunAgentOptions, prompts: string[]): RunFolderAgent {
  return {
    ...(prompts.length > 0 ? { prompts } : {}),
    ...(options.permissionMode ? { permissionMode: options.permissionMode } : {}),
    ...(options.dangerouslySkipPermissions ? { permissionMode: "bypassPermissions" } : {}),
    ...(options.allowedTools ? { allowedTools: options.allowedTools } : {}),
    ...(options.disallowedTools ? { disallowedTools: options.disallowedTools } : {}),
    ...(options.model ? { model: options.model } : {}),
    ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
    ...(options.appendSystemPrompt !== undefined ? { appendSystemPrompt: options.appendSystemPrompt } : {}),
  };
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

/** What the CLI says when it cannot connect to its API. */
const UNREACHABLE =
  /ECONNREFUSED|ECONNRESET|ENETUNREACH|EHOSTUNREACH|Connection refused|Unable to connect|internet/i;

function describeFailure(input: {
  run: Run;
  timedOut: boolean;
  aborted: boolean;
  timeoutMs: number;
  exitCode: number | null;
  signal: string | undefined;
  spawnError: string | undefined;
  stderr: string;
  baseUrl?: string;
}): string | undefined {
  if (input.timedOut) return `the run timed out after ${input.timeoutMs} ms and was killed`;
  if (input.aborted) return "the run was aborted and killed";
  if (input.spawnError) return `claude could not be started: ${input.spawnError}`;
  const final = finalResult(input.run);
  // "the API returned HTTP 400 (...)", "the agent stopped at the maximum of 2 turns", ...
  if (final?.is_error) {
    const reason = runOutcome(input.run).reason;
    // The CLI blames the internet, a firewall or a proxy; a loopback model server is simply not there.
    if (input.baseUrl && isLoopbackUrl(input.baseUrl) && UNREACHABLE.test(reason)) {
      return `the model server at ${input.baseUrl} (a local replay or scripted model server) could not be reached: it is not running (claude said: ${reason})`;
    }
    return reason;
  }
  if (input.exitCode !== 0) {
    const how =
      input.exitCode === null
        ? `was killed by ${input.signal ?? "a signal"}`
        : `exited with code ${input.exitCode}`;
    const lastLine = input.stderr.split("\n").filter(Boolean).pop();
    return `claude ${how}${lastLine ? `: ${lastLine.slice(0, 300)}` : ""}`;
  }
  if (!final) return "claude exited without a result line";
  return undefined;
}

/** As root, the CLI refuses bypassPermissions unless IS_SANDBOX=1; the run is sandboxed anyway. */
function needsIsSandbox(options: RunAgentOptions): boolean {
  const bypass =
    options.permissionMode === "bypassPermissions" || options.dangerouslySkipPermissions === true;
  return bypass && typeof process.getuid === "function" && process.getuid() === 0;
}

type CaptureMode = "http" | "command";

/** How this run captures: HTTP hooks unless asked otherwise or the CLI is too old for them. */
function captureModeOf(capture: RunAgentOptions["capture"], bin: string): CaptureMode | undefined {
  if (capture === false) return undefined;
  if (capture === "command" || capture === "http") return capture;
  const probe = claudeAvailable({ claudeBin: bin });
  return !probe.available || supportsHttpHooks(probe.version) ? "http" : "command";
}

/** The user's settings (an object or a JSON file), or an empty object. */
function baseSettings(settings: RunAgentOptions["settings"]): ClaudeSettings {
  return (typeof settings === "string" ? readSettingsFile(settings) : (settings ?? {})) as ClaudeSettings;
}

/**
 * What runAgent captures with hooks: only what neither its stream-json output nor the session's
 * transcript carries (each hook the CLI runs costs it CPU; see @evals/hooks' STREAM_GAP_HOOK_EVENTS).
 * The reconciler is told, so it does not expect the hooks to see the other tool calls.
 */
const RUN_AGENT_CAPTURE = { events: STREAM_GAP_HOOK_EVENTS, toolMatcher: STREAM_GAP_TOOL_MATCHER };

/** The CLI flag that makes it write no session transcript. */
const NO_SESSION = "--no-session-persistence";

/**
 * The prompts and instruction files of the run, from the session's transcript (see transcript.ts),
 * or why they could not be read: a run whose CLI started a session (its stream's init line) must
 * have left its transcript, and without it the run's record is incomplete like a lost hook event.
 */
function readTranscript(
  configDir: string,
  lines: unknown[],
  run: { cwd: string; runId: string; keepsNoSession: boolean },
): { events: CapturedEvent[]; failure?: string } {
  const sessionId = sessionIdOf(lines);
  if (!sessionId) return { events: [] };
  const file = findTranscript(configDir, sessionId);
  const lost = `its prompts and the instruction files Claude Code loaded (${TRANSCRIPT_HOOK_EVENTS.join(", ")}) are not known`;
  if (!file) {
    const why = run.keepsNoSession
      ? ` (its arguments have ${NO_SESSION}: leave it out of extraArgs, or run with capture: false)`
      : "";
    return {
      events: [],
      failure: `the run's record is incomplete: claude wrote no session transcript ${join(configDir, "projects", "*", `${sessionId}.jsonl`)}${why}, so ${lost}`,
    };
  }
  try {
    return { events: transcriptEvents(file, { sessionId, cwd: run.cwd, runId: run.runId }) };
  } catch (error) {
    return {
      events: [],
      failure: `the run's record is incomplete: the session transcript ${file} could not be read (${(error as Error).message}), so ${lost}`,
    };
  }
}

/** The session id of the stream's system/init line. */
function sessionIdOf(lines: unknown[]): string | undefined {
  for (const line of lines) {
    const record = line as { type?: unknown; subtype?: unknown; session_id?: unknown } | null;
    if (record?.type === "system" && record.subtype === "init" && typeof record.session_id === "string")
      return record.session_id;
  }
  return undefined;
}

/** Two time-ordered lists of captured lines as one, by captured_at (the hooks' first on a tie). */
function mergeByTime(hooks: CapturedEvent[], transcript: CapturedEvent[]): CapturedEvent[] {
  if (transcript.length === 0) return hooks;
  const merged: CapturedEvent[] = [];
  let next = 0;
  for (const line of hooks) {
    while (next < transcript.length && transcript[next]!.captured_at < line.captured_at)
      merged.push(transcript[next++]!);
    merged.push(line);
  }
  return [...merged, ...transcript.slice(next)];
}

/**
 * The run's settings: the user's, with the capture hooks added to every captured event (their own
 * hooks are kept): HTTP hooks to the collector, else the command hook. `base` alone without capture.
 */
function captureSettings(
  base: ClaudeSettings,
  collector: HookCollector | undefined,
  capture?: CaptureMode,
): ClaudeSettings {
  if (collector) return httpHookSettings({ base, url: collector.url, ...RUN_AGENT_CAPTURE });
  return capture === "command" ? hookSettings({ base, ...RUN_AGENT_CAPTURE }) : base;
}

/** Writes the run's settings file; undefined when there is nothing to write. */
function writeSettings(
  dir: string,
  given: RunAgentOptions["settings"],
  settings: ClaudeSettings,
): string | undefined {
  if (given === undefined && settings.hooks === undefined) return undefined;
  const file = join(dir, "settings.json");
  writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`);
  return file;
}

/**
 * The run's failure when its capture has fewer events than the CLI fired hooks for. A command hook's
 * firings look like any other hook's: events the user's settings or plugins also hook are not counted.
 */
function lostEventsFailure(
  capture: CaptureMode | undefined,
  input: {
    lines: unknown[];
    captured: CapturedEvent[];
    collectorFailed?: Readonly<Record<string, number>>;
    base: ClaudeSettings;
    options: RunAgentOptions;
    outputDir: string;
  },
): string | undefined {
  if (!capture) return undefined;
  const registered = RUN_AGENT_CAPTURE.events;
  const events =
    capture === "http"
      ? registered
      : input.options.pluginDirs?.length
        ? []
        : registered.filter((event) => !input.base.hooks?.[event]?.length);
  const lost = lostHookEvents({
    streamLines: input.lines,
    captured: input.captured,
    events,
    capture,
    ...(input.collectorFailed ? { collectorFailed: input.collectorFailed } : {}),
  });
  return lost.length > 0 ? describeLostEvents(lost, input.outputDir) : undefined;
}

/**
 * The capture hook's lines for this run (bad lines and the hook's own errors become notes). A run
 * may fire none of the captured events (no subagent, no permission request): then there is no file,
 * and a hook that fired but wrote nothing is a lost event (lostEventsFailure).
 */
async function readCaptured(outputDir: string): Promise<{ events: CapturedEvent[]; notes: RunNote[] }> {
  const notes: RunNote[] = [];
  if (!existsSync(join(outputDir, EVENTS_FILE))) return { events: [], notes };
  const events = await readEvents(outputDir, {
    onError: "skip",
    onBadLine: (error) => notes.push({ kind: "parse_error", message: error.message }),
    // A hook killed mid-write leaves a cut-off last line: the events before it still count.
    onTruncatedLine: (error) => notes.push({ kind: "parse_error", message: error.message }),
  });
  for (const entry of await readHookErrors(outputDir, { onError: "skip" })) {
    notes.push({
      kind: "other",
      message: `capture hook ${entry.kind}${entry.hook_event_name ? ` (${entry.hook_event_name})` : ""}: ${entry.message}`,
    });
  }
  return { events, notes };
}

function readSettingsFile(file: string): Record<string, unknown> {
  const path = isAbsolute(file) ? file : resolve(file);
  if (!existsSync(path)) throw new Error(`runAgent: settings file ${path} does not exist`);
  try {
    const value = JSON.parse(readFileSync(path, "utf8")) as unknown;
    if (!value || typeof value !== "object" || Array.isArray(value)) throw new Error("not a JSON object");
    return value as Record<string, unknown>;
  } catch (error) {
    throw new Error(`runAgent: settings file ${path} is not a JSON object: ${(error as Error).message}`);
  }
}

/* Runs in flight: if the test process exits or is told to stop, their process trees go with it. */

interface ActiveRun {
  pid: number | undefined;
  marker: string;
  outputDir: string;
  sandboxRoot: string;
  redactor: Redactor;
  guard: GuardedRun;
}

/**
 * Tracks a run in flight through @evals/core's exit clean-up (which re-raises a signal afterwards):
 * if the test process exits or is told to stop, the run's process tree is killed, its folder
 * redacted and its sandbox deleted (no result will name it). Returns the function that stops tracking.
 */
function trackRun(run: ActiveRun): () => void {
  const untrack = [
    registerExitCleanup(() => killRunProcesses(run.pid, run.marker), "kill"),
    registerExitCleanup(() => {
      redactTreeSync(run.outputDir, run.redactor);
      run.guard.release();
    }, "save"),
    registerExitCleanup(
      () => rmSync(run.sandboxRoot, { recursive: true, force: true, maxRetries: 3 }),
      "remove",
    ),
  ];
  return () => {
    for (const stop of untrack) stop();
  };
}

function killRunProcesses(pid: number | undefined, marker: string): void {
  for (const proc of runProcesses(pid, marker)) {
    try {
      process.kill(proc.pid, "SIGKILL");
    } catch {
      // Gone already.
    }
  }
  if (pid !== undefined) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // Gone already.
    }
  }
}
