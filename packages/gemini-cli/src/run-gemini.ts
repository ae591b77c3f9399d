import { randomBytes, randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import {
  type AgentRunResult,
  createRedactor,
  type LiveRunFields,
  liveRunResult,
  type RedactOptions,
  RUN_FOLDER_FILES,
  RUNS_FOLDER,
  type Run,
  rememberSecrets,
  writeRunFolder,
} from "@evals/core";
import {
  applyEnvOverrides,
  guardUntilExit,
  inheritedEnv,
  keepOrRemoveSandbox,
  MAX_PROMPT_ARG_BYTES,
  spawnSandboxedCli,
  WATCHDOG_MARKER_ENV,
} from "@evals/core/process";
import { findGemini, SUPPORTED_GEMINI_VERSION } from "./bin.js";
import {
  buildGeminiRun,
  type GeminiAfterTool,
  type GeminiRunnerStop,
  type GeminiStreamEvent,
} from "./gemini-run.js";
import type { GeminiPricing } from "./pricing.js";

export type GeminiApprovalMode = "default" | "auto_edit" | "yolo" | "plan";

export interface RunGeminiOptions {
  /** The prompt, or several (each next one resumes the same session: `--resume latest`). */
  prompt: string | string[];
  /** The agent's working directory (default process.cwd()). */
  cwd?: string;
  /** The loopback Gemini API, e.g. an @evals/vcr server started with `modelApi: "gemini"`. */
  baseUrl?: string;
  /** The API key the CLI sends (default: a dummy one). */
  apiKey?: string;
  /** `-m MODEL` (default gemini-2.5-flash; a model given skips the CLI's router call). */
  model?: string;
  /**
   * `--approval-mode` (default "yolo": headless, the CLI declares only read-only tools in any other
   * mode, and a call of another tool fails as `tool_not_registered`).
   */
  approvalMode?: GeminiApprovalMode;
  /** Settings merged over the runner's (its auth, privacy, retention, maxAttempts and hooks stay). */
  settings?: Record<string, unknown>;
  /** `model.maxSessionTurns`: the CLI stops after this many turns (exit 53, FatalTurnLimitedError). */
  maxTurns?: number;
  /** `tools.core`: only these Gemini tools (the runner maps the shared names). */
  coreTools?: string[];
  /** `tools.exclude`: never these Gemini tools. */
  excludeTools?: string[];
  /** `tools.allowed`: these run without asking, whatever the approval mode. */
  allowedTools?: string[];
  /** `--include-directories`. */
  includeDirectories?: string[];
  /**
   * Capture the AfterTool hook (default true): a shell command's exit code is only there (gemini's
   * stream reports every shell command as a success).
   */
  capture?: boolean;
  /** Kill the run after this long (default 300000 ms); the result then says `timed_out`. */
  timeoutMs?: number;
  /** Between SIGTERM and SIGKILL when the run is stopped (default 2000 ms). */
  killGraceMs?: number;
  signal?: AbortSignal;
  /** Extra environment for the CLI; wins over the runner's. `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  runId?: string;
  /** Where `test-output/<runId>/` goes (default EVALS_OUTPUT_DIR, else process.cwd()). */
  outputRoot?: string;
  /** The `gemini` executable (default: EVALS_GEMINI_BIN, node_modules/.bin from `cwd` up, PATH). */
  geminiBin?: string;
  /** Keep the private HOME/TMPDIR: "on-failure" (default), "always" or "never". */
  keepSandbox?: "on-failure" | "always" | "never";
  redact?: RedactOptions;
  /** Prices for the run's cost (default GEMINI_PRICES). */
  pricing?: GeminiPricing;
  onStreamEvent?: (event: GeminiStreamEvent) => void;
}

/** A @evals/core AgentRunResult with what every live run adds. */
export interface RunGeminiResult extends AgentRunResult, LiveRunFields {}

const DEFAULT_TIMEOUT_MS = 300_000;
export const DEFAULT_GEMINI_MODEL = "gemini-2.5-flash";
/** The most gemini reads of stdin: its readStdin cuts a longer prompt short, and runs the rest. */
const MAX_STDIN_PROMPT_BYTES = 8 * 1024 * 1024;
/**
 * The longest prompt gemini takes: it estimates a prompt over 100,000 characters at 4 characters a
 * token, and drops one over the model's context window (1,048,576 tokens) with exit 0 and no result.
 */
const MAX_PROMPT_CHARS = 4 * 1_048_576;

/** The file the AfterTool hook writes each payload into (one file per call, in the sandbox). */
const HOOK_DIR = "after-tool";
/** What a Gemini run inherits from the caller besides @evals/core's INHERITED_ENV (Windows needs the last two). */
const GEMINI_INHERITED_ENV = ["LANG", "LC_ALL", "TZ", "SYSTEMROOT", "COMSPEC"] as const;

/**
 * The settings of a hermetic run (shared/reference/gemini-cli.md): API-key auth against the given
 * base URL, no usage statistics or telemetry (both would reach Google hosts), no update checks, no
 * session clean-up (its data-loss bug), one attempt per model call (else 10 over ~218 s).
 */
export function hermeticSettings(
  options: RunGeminiOptions,
  hookCommand: string | undefined,
): Record<string, unknown> {
  const given = options.settings ?? {};
  const section = (name: string) => (given[name] ?? {}) as Record<string, unknown>;
  const tools = {
    ...section("tools"),
    ...(options.coreTools ? { core: options.coreTools } : {}),
    ...(options.excludeTools ? { exclude: options.excludeTools } : {}),
    ...(options.allowedTools ? { allowed: options.allowedTools } : {}),
  };
  const userHooks = section("hooks") as Record<string, unknown[]>;
  return {
    ...given,
    security: { ...section("security"), auth: { selectedType: "gemini-api-key" } },
    privacy: { ...section("privacy"), usageStatisticsEnabled: false },
    telemetry: { ...section("telemetry"), enabled: false },
    general: {
      ...section("general"),
      sessionRetention: { enabled: false },
      maxAttempts: 1,
      enableAutoUpdate: false,
      enableAutoUpdateNotification: false,
    },
    model: {
      ...section("model"),
      ...(options.maxTurns !== undefined ? { maxSessionTurns: options.maxTurns } : {}),
    },
    ...(Object.keys(tools).length > 0 ? { tools } : {}),
    hooks: {
      ...userHooks,
      ...(hookCommand
        ? {
            AfterTool: [
              ...(userHooks.AfterTool ?? []),
              {
                matcher: "*",
                hooks: [{ type: "command", name: "evals-capture", command: hookCommand, timeout: 10_000 }],
              },
            ],
          }
        : {}),
    },
  };
}

/**
 * Runs the real `gemini` CLI headless (`gemini -p PROMPT --output-format stream-json`) and returns
 * what it did as a @evals/core Run. The run is hermetic: a fresh HOME, GEMINI_CLI_HOME and TMPDIR
 * with the runner's settings.json, only the given base URL, no usage statistics, telemetry or
 * update checks, the workspace trusted, no relaunch (so one process group holds the run), nothing
 * of the caller's environment but PATH and the locale. A timeout or an abort ends the CLI's
 * process group; the private dirs are deleted afterwards.
 *
 * Throws only when the run cannot start (no gemini, no prompt); everything else is in the result.
 */
export async function runGemini(options: RunGeminiOptions): Promise<RunGeminiResult> {
  const entered = performance.now();
  const prompts = Array.isArray(options.prompt) ? options.prompt : [options.prompt];
  if (prompts.length === 0 || prompts.some((prompt) => prompt.trim() === "")) {
    throw new Error("runGemini: every prompt must be a non-empty string");
  }
  for (const [index, prompt] of prompts.entries()) {
    const tooLarge = promptTooLarge(prompt, index);
    if (tooLarge) throw new Error(`runGemini: ${tooLarge}`);
  }
  const cwd = resolve(options.cwd ?? process.cwd());
  // From the agent's workspace first, as codex: a project's own gemini wins over the caller's.
  const bin = findGemini(options.geminiBin, cwd);
  const runId = options.runId ?? `gemini-${Date.now().toString(36)}-${randomBytes(3).toString("hex")}`;
  const outputDir = join(
    resolve(options.outputRoot ?? process.env.EVALS_OUTPUT_DIR ?? process.cwd()),
    RUNS_FOLDER,
    runId,
  );
  mkdirSync(outputDir, { recursive: true });

  const sandbox = mkdtempSync(join(tmpdir(), `evals-gemini-${runId.slice(0, 40)}-`));
  const home = join(sandbox, "home");
  const temp = join(sandbox, "tmp");
  const hookDir = join(sandbox, HOOK_DIR);
  for (const dir of [join(home, ".gemini"), temp, hookDir]) mkdirSync(dir, { recursive: true });
  const capture = options.capture ?? true;
  // One file per call (calls may run in parallel); `sh` and `cat` only, so a hook costs milliseconds.
  const hookCommand = capture ? `cat > "$(mktemp '${hookDir}/call-XXXXXXXX')"` : undefined;
  writeFileSync(
    join(home, ".gemini", "settings.json"),
    JSON.stringify(hermeticSettings(options, hookCommand), null, 2),
  );
  // The project's short name is fixed, so its temporary directory (in every request) does not depend on the cwd's name.
  writeFileSync(
    join(home, ".gemini", "projects.json"),
    JSON.stringify({ projects: { [cwd]: "workspace" } }, null, 2),
  );

  const marker = randomUUID();
  const env = runEnv(options, { home, temp, marker });
  const redaction = { ...options.redact, env, ...(options.env ? { secretEnv: options.env } : {}) };
  const redactor = createRedactor(redaction);
  rememberSecrets(redaction);
  const guard = guardUntilExit({ id: marker, marker, group: true, remove: [sandbox] });

  const events: GeminiStreamEvent[] = [];
  const streamLines: string[] = [];
  let stop: GeminiRunnerStop | undefined;
  let stderr = "";
  let exitCode: number | null = null;
  let signal: string | undefined;
  let spawnError: string | undefined;
  let command: string[] = [];
  const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);

  for (const [turn, prompt] of prompts.entries()) {
    if (stop) break;
    // A prompt too long for one argument (the kernel refuses one over 128 KiB: E2BIG) goes in on
    // stdin with an empty -p: gemini then takes the piped text alone as the prompt (stdin before a
    // non-empty -p would be joined to it).
    const onStdin = Buffer.byteLength(prompt) > MAX_PROMPT_ARG_BYTES;
    const args = [
      "-p",
      onStdin ? "" : prompt,
      "--output-format",
      "stream-json",
      "-m",
      options.model ?? DEFAULT_GEMINI_MODEL,
    ];
    args.push("--approval-mode", options.approvalMode ?? "yolo");
    for (const dir of options.includeDirectories ?? []) args.push("--include-directories", dir);
    if (turn > 0) args.push("--resume", "latest");
    command = [bin, ...args];
    const cli = spawnSandboxedCli({
      bin,
      args,
      ...(onStdin ? { input: prompt } : {}),
      cwd,
      env,
      timeoutMs: Math.max(0, deadline - Date.now()),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.killGraceMs !== undefined ? { killGraceMs: options.killGraceMs } : {}),
      marker,
      onLine: (text) => {
        let event: unknown;
        try {
          event = JSON.parse(text);
        } catch {
          return;
        }
        if (!event || typeof event !== "object" || typeof (event as { type?: unknown }).type !== "string")
          return;
        streamLines.push(text);
        events.push(event as GeminiStreamEvent);
        options.onStreamEvent?.(event as GeminiStreamEvent);
      },
    });
    guard.started(cli.pid);
    const outcome = await cli.exited;
    stop ??= outcome.stopped;
    stderr += outcome.stderr;
    // Killed by the runner, gemini still exits 0 (its SIGTERM handler does): such a run has no exit
    // code of its own, as a stopped Codex run.
    exitCode = outcome.stopped ? null : outcome.exitCode;
    signal = outcome.signal;
    spawnError ??= outcome.spawnError;
    if (exitCode !== 0) break;
  }
  guard.release();

  const afterTool = capture ? readHookPayloads(hookDir) : undefined;
  const plainStderr = stderr.replace(/\u001b\[[0-9;]*m/g, "").trim();
  const run: Run = buildGeminiRun({
    events,
    ...(afterTool ? { afterTool } : {}),
    prompts,
    runId,
    cwd,
    version: SUPPORTED_GEMINI_VERSION,
    exitCode,
    ...(stop ? { stop } : {}),
    durationMs: Math.round(performance.now() - entered),
    ...(options.pricing ? { pricing: options.pricing } : {}),
  });
  const unreachable = await unreachableServer(options.baseUrl, run);
  const error = describeFailure({
    run,
    stop,
    options,
    exitCode,
    signal,
    spawnError,
    stderr: plainStderr,
    unreachable,
  });
  const keepSandbox = keepOrRemoveSandbox(sandbox, options.keepSandbox, error !== undefined, redactor);
  const result: RunGeminiResult = redactor.value<RunGeminiResult>(
    liveRunResult({
      runId,
      outputDir,
      run,
      exitCode,
      timedOut: stop?.kind === "timeout",
      entered,
      stderr: plainStderr,
      command,
      ...(keepSandbox ? { sandboxDir: sandbox } : {}),
      error,
    }),
  );
  writeFileSync(
    join(outputDir, RUN_FOLDER_FILES.stream),
    `${streamLines.map((line) => redactor.text(line)).join("\n")}\n`,
  );
  if (afterTool) {
    writeFileSync(
      join(outputDir, GEMINI_HOOKS_FILE),
      afterTool.map((payload) => redactor.text(JSON.stringify(payload))).join("\n") +
        (afterTool.length ? "\n" : ""),
    );
  }
  writeRunFolder(outputDir, runId, {
    result,
    agent: {
      cli: "gemini",
      prompts,
      model: options.model ?? DEFAULT_GEMINI_MODEL,
      ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
      approvalMode: options.approvalMode ?? "yolo",
    },
  });
  return result;
}

/** The run folder file holding the AfterTool hook payloads (JSONL), beside stream.jsonl. */
export const GEMINI_HOOKS_FILE = "gemini-after-tool.jsonl";

/** The AfterTool payloads the hook wrote, in the order the CLI ran them. */
function readHookPayloads(dir: string): GeminiAfterTool[] {
  const payloads: GeminiAfterTool[] = [];
  for (const file of readdirSync(dir)) {
    try {
      payloads.push(JSON.parse(readFileSync(join(dir, file), "utf8")) as GeminiAfterTool);
    } catch {
      // A payload cut short (the run was killed while the hook wrote it) says nothing reliable.
    }
  }
  return payloads.sort((a, b) => String(a.timestamp ?? "").localeCompare(String(b.timestamp ?? "")));
}

/** Why gemini cannot take a prompt, when it cannot: gemini would cut or drop it without failing. */
function promptTooLarge(prompt: string, index: number): string | undefined {
  const bytes = Buffer.byteLength(prompt);
  const fix = "shorten it, or put the long part in a file of the workspace for the agent to read";
  if (bytes > MAX_STDIN_PROMPT_BYTES) {
    return `prompt ${index + 1} is ${bytes} bytes, over the ${MAX_STDIN_PROMPT_BYTES} bytes (8 MiB) gemini reads from stdin: Gemini cannot take it (gemini would cut it short without failing); ${fix}`;
  }
  if (prompt.length > MAX_PROMPT_CHARS) {
    return `prompt ${index + 1} is ${prompt.length} characters, over the ${MAX_PROMPT_CHARS} characters gemini takes (the model's context window of 1048576 tokens at its estimate of 4 characters a token): Gemini cannot take it (gemini would drop it and exit 0 without a result); ${fix}`;
  }
  return undefined;
}

function runEnv(
  options: RunGeminiOptions,
  dirs: { home: string; temp: string; marker: string },
): Record<string, string> {
  const env = inheritedEnv(GEMINI_INHERITED_ENV);
  env.LANG ??= "C.UTF-8";
  Object.assign(env, {
    HOME: dirs.home,
    GEMINI_CLI_HOME: dirs.home,
    TMPDIR: dirs.temp,
    TMP: dirs.temp,
    TEMP: dirs.temp,
    // One process: the CLI relaunches itself as a child that a kill of the parent would orphan.
    GEMINI_CLI_NO_RELAUNCH: "true",
    GEMINI_CLI_TRUST_WORKSPACE: "true",
    GEMINI_API_KEY: options.apiKey ?? "dummy-gemini-key",
    FORCE_COLOR: "0",
    NO_COLOR: "1",
    [WATCHDOG_MARKER_ENV]: dirs.marker,
  });
  if (options.baseUrl) env.GOOGLE_GEMINI_BASE_URL = options.baseUrl.replace(/\/+$/, "");
  return applyEnvOverrides(env, options.env);
}

/**
 * Why the model server at `baseUrl` cannot be reached, when gemini's error is a failed fetch: gemini
 * says only "fetch failed", not where to. Asks the server once; undefined when it answers.
 */
async function unreachableServer(baseUrl: string | undefined, run: Run): Promise<string | undefined> {
  const final = run.events.find((event) => event.type === "final_result");
  if (!baseUrl || final?.type !== "final_result" || !final.errors?.some((text) => /fetch failed/.test(text)))
    return undefined;
  try {
    const response = await fetch(baseUrl, { signal: AbortSignal.timeout(2000) });
    await response.body?.cancel();
    return undefined;
  } catch (error) {
    const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
    const why = cause?.code ?? cause?.message;
    return typeof why === "string" ? why : (error as Error).message;
  }
}

function describeFailure(input: {
  run: Run;
  stop: GeminiRunnerStop | undefined;
  options: RunGeminiOptions;
  exitCode: number | null;
  signal: string | undefined;
  spawnError: string | undefined;
  stderr: string;
  unreachable: string | undefined;
}): string | undefined {
  if (input.stop?.kind === "timeout") {
    return `the run timed out after ${input.options.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms and was killed`;
  }
  if (input.stop?.kind === "aborted") return "the run was aborted and killed";
  if (input.spawnError) return `gemini could not be started: ${input.spawnError}`;
  const final = input.run.events.find((event) => event.type === "final_result");
  if (final?.type === "final_result" && final.is_error) {
    if (input.unreachable) {
      return `the model server at ${input.options.baseUrl} could not be reached (${input.unreachable}): start it, or check baseUrl (gemini said: ${final.errors?.join("; ")})`;
    }
    return `gemini ended with an error (${final.terminal_reason}): ${final.errors?.join("; ")}`;
  }
  if (input.exitCode !== 0) {
    const how =
      input.exitCode === null
        ? `was killed by ${input.signal ?? "a signal"}`
        : `exited with code ${input.exitCode}`;
    const last = input.stderr.split("\n").filter(Boolean).pop();
    return `gemini ${how}${last ? `: ${last.slice(0, 300)}` : ""}`;
  }
  if (!final) {
    return "gemini exited without a result (it exits 0 so when it drops a prompt it estimates over the model's context window)";
  }
  return undefined;
}
