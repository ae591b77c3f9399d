import { randomBytes, randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import {
  type AgentRunResult,
  createRedactor,
  type LiveRunFields,
  liveRunResult,
  RUN_FOLDER_FILES,
  RUNS_FOLDER,
  type Run,
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
import { findCodex, SUPPORTED_CODEX_VERSION } from "./bin.js";
import {
  type CodexOptions,
  CodexOptionsSchema,
  codexConfigToml,
  configArgs,
  DEFAULT_CODEX_MODEL,
} from "./codex-options.js";
import { buildCodexRun, type CodexStop, type CodexStreamLine } from "./codex-run.js";
import { startModelTap } from "./model-tap.js";
import type { AgentRunOptions } from "./runner.js";

export interface RunCodexResult extends AgentRunResult, LiveRunFields {
  /** Where the time went: the runner's setup before the first spawn, the CLI, the runner's work after. */
  timings: { setup_ms: number; cli_ms: number; finish_ms: number };
}

const DEFAULT_TIMEOUT_MS = 300_000;

/**
 * Runs the real `codex exec --json` headless and hermetic against the loopback model server at
 * `shared.baseUrl`, and returns what it did as a @evals/core Run (see buildCodexRun). A fresh
 * CODEX_HOME holds the only config Codex reads (the loopback provider, network features off); HOME
 * is a fresh folder too. Several prompts continue the same thread (`codex exec resume`). `maxTurns`
 * is enforced by the runner (Codex has none): the model request past it is refused and the run
 * reported as a turn limit. Throws only when the run cannot start (bad options, no codex).
 */
export async function runCodex(
  shared: AgentRunOptions,
  codexOptions: CodexOptions = {},
): Promise<RunCodexResult> {
  const entered = performance.now();
  const options = parseCodexOptions(codexOptions);
  const prompts = Array.isArray(shared.prompt) ? shared.prompt : [shared.prompt];
  if (prompts.length === 0 || prompts.some((prompt) => prompt.trim() === "")) {
    throw new Error("runCodex: every prompt must be a non-empty string");
  }
  for (const name of ["tools", "allowedTools", "disallowedTools"] as const) {
    if (shared[name] !== undefined) {
      throw new Error(
        `Codex has no tool list (agent.${name}): restrict it with its own options instead, agent.options.sandbox (read-only) or agent.options.hooks (a PreToolUse hook that denies)`,
      );
    }
  }
  if (!shared.baseUrl) {
    throw new Error(
      "runCodex: baseUrl is required: Codex runs only against a loopback model server (start one with @evals/vcr's startModelServer(scriptedResponses(...)) or a replaying/recording source)",
    );
  }
  const bin = findCodex({
    ...(options.codexBin ? { codexBin: options.codexBin } : {}),
    ...(shared.cwd ? { from: shared.cwd } : {}),
  });
  const cwd = resolve(shared.cwd ?? process.cwd());
  const runId = shared.runId ?? `codex-${Date.now().toString(36)}-${randomBytes(3).toString("hex")}`;
  const outputDir = join(
    resolve(shared.outputRoot ?? process.env.EVALS_OUTPUT_DIR ?? process.cwd()),
    RUNS_FOLDER,
    runId,
  );
  mkdirSync(outputDir, { recursive: true });

  const tap = await startModelTap(shared.baseUrl, shared.maxTurns);
  const sandbox = mkdtempSync(join(tmpdir(), "evals-codex-"));
  const codexHome = join(sandbox, "codex-home");
  const home = join(sandbox, "home");
  // The agent's temp folder (/tmp is not writable in the sandbox, see codexConfigToml). Inside
  // CODEX_HOME, which a replay masks, so the writable roots the model is told match run to run.
  const tmp = join(codexHome, "tmp");
  mkdirSync(codexHome, { recursive: true });
  mkdirSync(home, { recursive: true });
  mkdirSync(tmp, { recursive: true });
  const model = shared.model ?? DEFAULT_CODEX_MODEL;
  writeFileSync(
    join(codexHome, "config.toml"),
    codexConfigToml({
      baseUrl: tap.url,
      model,
      requestMaxRetries: options.requestMaxRetries ?? 0,
      streamMaxRetries: options.streamMaxRetries ?? 0,
      ...(options.approvalPolicy ? { approvalPolicy: options.approvalPolicy } : {}),
    }),
  );
  if (options.hooks)
    writeFileSync(join(codexHome, "hooks.json"), JSON.stringify({ hooks: options.hooks }, null, 2));

  // Nothing else of the caller's environment gets through.
  const marker = randomUUID();
  const env = applyEnvOverrides(
    {
      ...inheritedEnv(["LANG"]),
      HOME: home,
      CODEX_HOME: codexHome,
      TMPDIR: tmp,
      EVALS_CODEX_API_KEY: shared.apiKey ?? "evals-offline-key",
      NO_COLOR: "1",
      [WATCHDOG_MARKER_ENV]: marker,
    },
    shared.env,
  );
  // Should this process be interrupted or killed mid-run, the watchdog kills codex (its own process
  // group) and deletes the sandbox: no CODEX_HOME (sessions, sqlite state) is left in the temp folder.
  const guard = guardUntilExit({ id: marker, marker, group: true, remove: [sandbox] });
  const redactor = createRedactor({ ...shared.redact, ...(shared.env ? { secretEnv: shared.env } : {}) });

  const flags = (resume: boolean) => [
    "--json",
    "--skip-git-repo-check",
    ...sandboxArgs(options.sandbox, resume),
    ...configArgs(options.config),
    ...(options.hooks ? ["--dangerously-bypass-hook-trust"] : []),
  ];
  const lines: CodexStreamLine[] = [];
  const streamText: string[] = [];
  let stop: CodexStop | undefined;
  let stderr = "";
  let exitCode: number | null = null;
  let command: string[] = [];
  let spawnError: string | undefined;
  const timeoutMs = shared.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = Date.now() + timeoutMs;
  const spawned = performance.now();

  try {
    for (const [turn, prompt] of prompts.entries()) {
      const thread = lines.find((line) => line.type === "thread.started")?.thread_id;
      // A prompt too long for one argument (the kernel refuses one over 128 KiB: E2BIG) goes in on
      // stdin, which `-` tells codex to read it from.
      const onStdin = Buffer.byteLength(prompt) > MAX_PROMPT_ARG_BYTES;
      const promptArg = onStdin ? "-" : prompt;
      const args =
        turn > 0 && thread
          ? ["exec", "resume", ...flags(true), thread, promptArg]
          : ["exec", ...flags(false), promptArg];
      command = [bin, ...args];
      const cli = spawnSandboxedCli({
        bin,
        args,
        ...(onStdin ? { input: prompt } : {}),
        cwd,
        env,
        timeoutMs: Math.max(0, deadline - Date.now()),
        ...(shared.signal ? { signal: shared.signal } : {}),
        ...(shared.killGraceMs !== undefined ? { killGraceMs: shared.killGraceMs } : {}),
        marker,
        onLine: (text) => {
          streamText.push(text);
          try {
            const line = JSON.parse(text) as CodexStreamLine;
            if (line && typeof line.type === "string") lines.push(line);
          } catch {
            // Not an event line.
          }
        },
      });
      guard.started(cli.pid);
      const outcome = await cli.exited;
      if (outcome.stopped?.kind === "timeout") stop ??= { kind: "timeout", ms: timeoutMs };
      if (outcome.stopped?.kind === "aborted") stop ??= { kind: "aborted" };
      stderr += outcome.stderr;
      exitCode = outcome.exitCode;
      spawnError ??= outcome.spawnError;
      if (tap.limited()) stop ??= { kind: "max_turns", turns: shared.maxTurns ?? 0 };
      if (exitCode !== 0 || stop) break;
    }
  } finally {
    guard.release();
    await tap.close();
  }
  const exited = performance.now();

  const run: Run = buildCodexRun({
    lines,
    modelItems: tap.modelItems(),
    modelRequests: tap.requests(),
    ...(tap.lastErrorStatus() !== undefined ? { lastErrorStatus: tap.lastErrorStatus()! } : {}),
    prompts,
    runId,
    cwd,
    model,
    version: tap.cliVersion() ?? SUPPORTED_CODEX_VERSION,
    ...(stop ? { stop } : {}),
    exitCode,
    durationMs: Math.round(performance.now() - entered),
  });
  const plainStderr = stderr.trim();
  const error = describeFailure(run, stop, exitCode, spawnError, plainStderr);
  const keepSandbox = keepOrRemoveSandbox(sandbox, shared.keepSandbox, error !== undefined, redactor);
  const result: RunCodexResult = redactor.value<RunCodexResult>({
    ...liveRunResult({
      runId,
      outputDir,
      run,
      exitCode,
      timedOut: stop?.kind === "timeout",
      entered,
      stderr,
      command,
      ...(keepSandbox ? { sandboxDir: sandbox } : {}),
      error,
    }),
    timings: { setup_ms: 0, cli_ms: 0, finish_ms: 0 },
  });
  writeFileSync(
    join(outputDir, RUN_FOLDER_FILES.stream),
    `${streamText.map((line) => redactor.text(line)).join("\n")}\n`,
  );
  writeRunFolder(outputDir, runId, {
    result,
    agent: {
      cli: "codex",
      prompts,
      model,
      ...(shared.maxTurns !== undefined ? { maxTurns: shared.maxTurns } : {}),
      ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    },
  });
  result.timings = {
    setup_ms: Math.round(spawned - entered),
    cli_ms: Math.round(exited - spawned),
    finish_ms: Math.round(performance.now() - exited),
  };
  return result;
}

/** Codex's own options, checked: a bad one throws with the field that is wrong. */
export function parseCodexOptions(options: unknown): CodexOptions {
  const parsed = CodexOptionsSchema.safeParse(options ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new Error(`codex options (field ${issue.path.join(".") || "(root)"}): ${issue.message}`);
}

/** The sandbox flags: `exec resume` has no --sandbox, so a resumed turn sets the config key instead. */
function sandboxArgs(sandbox: CodexOptions["sandbox"] = "workspace-write", resume = false): string[] {
  if (sandbox === "bypass") return ["--dangerously-bypass-approvals-and-sandbox"];
  return resume ? ["-c", `sandbox_mode="${sandbox}"`] : ["--sandbox", sandbox];
}

function describeFailure(
  run: Run,
  stop: CodexStop | undefined,
  exitCode: number | null,
  spawnError: string | undefined,
  stderr: string,
): string | undefined {
  if (stop?.kind === "timeout") return `the run timed out after ${stop.ms} ms and was killed`;
  if (stop?.kind === "aborted") return "the run was aborted and killed";
  if (stop?.kind === "max_turns")
    return `the agent reached the maximum of ${stop.turns} turns and was stopped`;
  if (spawnError) return `codex could not be started: ${spawnError}`;
  const final = run.events.find((event) => event.type === "final_result");
  if (final?.type === "final_result" && final.is_error)
    return `codex ended with an error: ${final.errors?.join("; ")}`;
  if (exitCode !== 0) {
    const last = stderr.split("\n").filter(Boolean).pop();
    return `codex exited with code ${exitCode}${last ? `: ${last.slice(0, 300)}` : ""}`;
  }
  return undefined;
}
