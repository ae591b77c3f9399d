import { randomUUID } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import {
  type AgentRunResult,
  buildOpenCodeRun,
  createRedactor,
  type LiveRunFields,
  liveRunResult,
  newRunId,
  type OpenCodeChildSession,
  type OpenCodePart,
  type OpenCodeStreamLine,
  type RedactOptions,
  RUN_FOLDER_FILES,
  type Run,
  type RunnerStop,
  rememberSecrets,
  runFolderPath,
  writeRunFolder,
} from "@evals/core";
import {
  applyEnvOverrides,
  guardUntilExit,
  inheritedEnv,
  keepOrRemoveSandbox,
  RUN_MARKER_ENV,
  spawnSandboxedCli,
} from "@evals/core/process";
import { execa } from "execa";
import { findOpenCode, findRipgrepDir, SUPPORTED_OPENCODE_VERSION } from "./bin.js";
import { CAPTURE_ENV, CAPTURE_PLUGIN_FILE, capturePluginSource } from "./capture-plugin.js";
import { providerModelsDb } from "./models-db.js";
import { frontmatterData, onlyProvider } from "./only-provider.js";

/** OpenCode's built-in agents that `--agent` accepts (`general` and `explore` are subagents). */
export const OPENCODE_PRIMARY_AGENTS = ["build", "plan"] as const;

export interface RunOpenCodeOptions {
  /** The prompt, or several (each next one continues the same session: `opencode run --session`). */
  prompt: string | string[];
  /** The agent's working directory (default process.cwd()). */
  cwd?: string;
  /** The model server's url, e.g. a loopback @evals/vcr server's `server.url` (`/v1` is added). */
  baseUrl?: string;
  /** The API key OpenCode sends (default: a dummy one). */
  apiKey?: string;
  /** `provider/model` (default `anthropic/claude-sonnet-4-5`). */
  model?: string;
  /** `--agent NAME`: a built-in primary agent (build, plan), one of `agents`, or one in the cwd's .opencode/agent/. */
  agent?: string;
  /**
   * Custom agent files, NAME -> the markdown (YAML frontmatter + prompt) OpenCode reads from
   * `agent/NAME.md`. Written to the run's private config dir, never into the working directory.
   */
  agents?: Record<string, string>;
  /** OpenCode's `permission` config, e.g. `{ bash: { "*": "allow", "rm *": "ask" } }`. */
  permission?: Record<string, unknown>;
  /**
   * `--auto`: grant every permission OpenCode asks for, except what the config denies (default
   * false: `opencode run` rejects each ask and ends the run after that step).
   */
  autoApprove?: boolean;
  /** More OpenCode config (merged over the runner's; `provider`, `autoupdate`, `share` stay the runner's). */
  config?: Record<string, unknown>;
  /**
   * The session title: given, OpenCode skips its title-generating model call (default "evals run").
   * `false` lets OpenCode ask the model for a title (one more request, with a small model).
   */
  title?: string | false;
  /** Stop the run after this many model steps that asked for tools (OpenCode's own `steps` only warns the model). */
  maxSteps?: number;
  /**
   * Keep the workspace's CLAUDE.md out of the system prompt (OPENCODE_DISABLE_CLAUDE_CODE=1). AGENTS.md in
   * the working directory is read regardless: keep it out of the workspace to keep it out of the prompt.
   */
  ignoreClaudeMd?: boolean;
  /**
   * Install the capture plugin (default true): OpenCode's tool.execute.before/after hooks write
   * @evals/hooks captured events to the run folder's events.jsonl, subagent sessions included.
   */
  capture?: boolean;
  /**
   * How many retries of a failed model call (429, 5xx) to let OpenCode make before the run is
   * stopped as an API error (default 0; OpenCode itself retries 5 times over ~76 s). Needs `capture`.
   */
  apiRetries?: number;
  /** Kill the run after this long (default 300000 ms); the result then says `timed_out`. */
  timeoutMs?: number;
  /** Between SIGTERM and SIGKILL when the run is stopped (default 2000 ms). */
  killGraceMs?: number;
  /** Aborting stops the run like a timeout does. */
  signal?: AbortSignal;
  /** Extra environment for the CLI; wins over the runner's. `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  /** The run's id (default: a fresh one). */
  runId?: string;
  /** Where `test-output/<runId>/` goes (default EVALS_OUTPUT_DIR, else process.cwd()). */
  outputRoot?: string;
  /** The `opencode` executable (default: EVALS_OPENCODE_BIN, node_modules/.bin from `cwd` up, then from process.cwd() up, PATH). */
  opencodeBin?: string;
  /** Keep the private HOME/XDG dirs: "on-failure" (default), "always" or "never". */
  keepSandbox?: "on-failure" | "always" | "never";
  /** Called with each stream line as it arrives. */
  onStreamLine?: (line: OpenCodeStreamLine) => void;
  /** More secrets to keep out of every file the run leaves and out of the result. */
  redact?: Omit<RedactOptions, "env">;
}

export interface RunOpenCodeResult extends AgentRunResult, LiveRunFields {
  /** Where `rg` came from for glob/grep, or undefined when there was none. */
  ripgrep_dir?: string;
}

/** Thrown before anything runs when `agent` names an agent the run does not define. */
export class UnknownAgentError extends Error {
  override readonly name = "UnknownAgentError";
}

const DEFAULT_TIMEOUT_MS = 300_000;

/**
 * Files OpenCode writes into `<cwd>/.opencode/` when that folder exists: a .gitignore, and what its
 * background install of @opencode-ai/plugin leaves when npm can reach a registry. Those the run
 * created are deleted afterwards.
 */
const OPENCODE_WORKSPACE_ARTIFACTS = [
  ".gitignore",
  "package.json",
  "package-lock.json",
  "bun.lock",
  "node_modules",
];
const DEFAULT_MODEL = "anthropic/claude-sonnet-4-5";

/**
 * Runs the real `opencode` CLI headless (`opencode run --format json`, the prompt on stdin, verbatim)
 * and returns what it did as a @evals/core Run, the same shape @evals/claude-code's runAgent returns for
 * Claude Code. The run is hermetic: fresh HOME and XDG dirs, the config (with the model server) in
 * OPENCODE_CONFIG_CONTENT, no autoupdate, no sharing, no models fetch, npm kept offline (OpenCode's
 * background plugin install fails at once instead of stalling the run), `rg` on PATH for glob/grep.
 * A timeout, an abort or `maxSteps` ends the CLI and every process it started; the private dirs are
 * deleted afterwards. Subagent (`task`) sessions are read from OpenCode's database after the run.
 *
 * Throws only when the run cannot start (no opencode, an unknown agent); everything else is in the result.
 */
export async function runOpenCode(options: RunOpenCodeOptions): Promise<RunOpenCodeResult> {
  const entered = performance.now();
  const prompts = Array.isArray(options.prompt) ? options.prompt : [options.prompt];
  if (prompts.length === 0 || prompts.some((prompt) => prompt.trim() === "")) {
    throw new Error("runOpenCode: every prompt must be a non-empty string");
  }
  const cwd = resolve(options.cwd ?? process.cwd());
  // From the agent's workspace first, as the other runners: a project's own opencode wins over the caller's.
  const bin = findOpenCode({
    ...(options.opencodeBin ? { opencodeBin: options.opencodeBin } : {}),
    from: cwd,
    alsoFrom: [process.cwd()],
  });
  checkAgent(options, cwd);
  const runId = options.runId ?? newRunId("opencode");
  // Refuses a runId that is not one safe path segment, before anything is written.
  const outputDir = runFolderPath(runId, options.outputRoot ?? process.env.EVALS_OUTPUT_DIR ?? process.cwd());
  mkdirSync(outputDir, { recursive: true });

  const sandbox = mkdtempSync(join(tmpdir(), `evals-opencode-${runId.slice(0, 40)}-`));
  const dirs = {
    HOME: join(sandbox, "home"),
    XDG_CONFIG_HOME: join(sandbox, "config"),
    XDG_DATA_HOME: join(sandbox, "data"),
    XDG_CACHE_HOME: join(sandbox, "cache"),
    XDG_STATE_HOME: join(sandbox, "state"),
    TMPDIR: join(sandbox, "tmp"),
  };
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
  markPluginInstalled(join(dirs.XDG_CONFIG_HOME, "opencode"));
  if (options.agents) {
    const agentDir = join(dirs.XDG_CONFIG_HOME, "opencode", "agent");
    mkdirSync(agentDir, { recursive: true });
    for (const [name, text] of Object.entries(options.agents))
      writeFileSync(join(agentDir, `${name}.md`), text);
  }
  const capture = options.capture ?? true;
  const statusFile = join(sandbox, "status.jsonl");
  if (capture) {
    const pluginDir = join(dirs.XDG_CONFIG_HOME, "opencode", "plugin");
    mkdirSync(pluginDir, { recursive: true });
    writeFileSync(join(pluginDir, CAPTURE_PLUGIN_FILE), capturePluginSource());
  }
  const marker = randomUUID();
  const ripgrepDir = findRipgrepDir();
  const env = runEnv({ options, dirs, marker, ripgrepDir });
  // OpenCode reads only the models of the run's provider (the `env` option may name another file, or none).
  const provider =
    options.env && "OPENCODE_MODELS_PATH" in options.env
      ? undefined
      : onlyProvider({ ...options, model: options.model ?? DEFAULT_MODEL }, cwd);
  const modelsDb = provider ? await providerModelsDb(bin, provider) : undefined;
  if (modelsDb) env.OPENCODE_MODELS_PATH = modelsDb;
  if (capture) {
    env[CAPTURE_ENV.events] ??= join(outputDir, RUN_FOLDER_FILES.events);
    env[CAPTURE_ENV.status] ??= statusFile;
    env.TEST_RUN_ID ??= runId;
  }
  // The agent's own env is secret whatever its names; the rest of the env by name.
  const redaction = { ...options.redact, env, ...(options.env ? { secretEnv: options.env } : {}) };
  const redactor = createRedactor(redaction);
  rememberSecrets(redaction);
  const guard = guardUntilExit({ id: marker, marker, group: true, remove: [sandbox] });

  const workspaceArtifacts = OPENCODE_WORKSPACE_ARTIFACTS.map((name) => join(cwd, ".opencode", name)).filter(
    (path) => !existsSync(path),
  );
  const lines: OpenCodeStreamLine[] = [];
  const streamFile: string[] = [];
  let stop: RunnerStop | undefined;
  let stderr = "";
  let exitCode: number | null = null;
  let signal: string | undefined;
  let spawnError: string | undefined;
  let command: string[] = [];
  let toolSteps = 0;
  const deadline = Date.now() + (options.timeoutMs ?? DEFAULT_TIMEOUT_MS);

  for (const [turn, prompt] of prompts.entries()) {
    if (stop) break;
    const session = lines.find((line) => line.sessionID)?.sessionID;
    const args = ["run", "--format", "json"];
    if (options.agent) args.push("--agent", options.agent);
    if (options.autoApprove) args.push("--auto");
    if (options.title !== false) args.push("--title", options.title ?? "evals run");
    if (turn > 0 && session) args.push("--session", session);
    command = [bin, ...args];
    const cli = spawnSandboxedCli<RunnerStop>({
      bin,
      args,
      cwd,
      env,
      input: prompt,
      timeoutMs: Math.max(0, deadline - Date.now()),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.killGraceMs !== undefined ? { killGraceMs: options.killGraceMs } : {}),
      marker,
      onLine: (text) => {
        if (cli.stopped) return;
        streamFile.push(text);
        let line: unknown;
        try {
          line = JSON.parse(text);
        } catch {
          return;
        }
        if (!line || typeof line !== "object") return;
        lines.push(line as OpenCodeStreamLine);
        options.onStreamLine?.(line as OpenCodeStreamLine);
        const part = (line as OpenCodeStreamLine).part;
        // A step that ends asking for tools is one tool step; past maxSteps the model would be called again.
        if (part?.type === "step-finish" && part.reason === "tool-calls") {
          toolSteps++;
          if (options.maxSteps !== undefined && toolSteps >= options.maxSteps) {
            cli.stop({ kind: "max_steps", steps: options.maxSteps });
          }
        }
      },
    });
    guard.started(cli.pid);
    // OpenCode prints nothing while it retries a failed model call: its session.status says so.
    const retryWatch = capture
      ? setInterval(() => {
          const retry = readRetry(statusFile);
          if (retry && retry.attempt > (options.apiRetries ?? 0)) {
            cli.stop({ kind: "api_error", message: retry.message, attempt: retry.attempt });
          }
        }, 250)
      : undefined;
    const outcome = await cli.exited;
    clearInterval(retryWatch);
    stop ??= outcome.stopped;
    stderr += outcome.stderr;
    exitCode = outcome.exitCode;
    signal = outcome.signal;
    spawnError ??= outcome.spawnError;
    if (exitCode !== 0 && !stop) break;
  }

  const children = await readChildSessions(bin, cwd, env, lines);
  // What OpenCode itself wrote into the workspace's .opencode/ (it does when that folder exists) goes.
  for (const path of workspaceArtifacts) rmSync(path, { recursive: true, force: true });
  guard.release();
  const plainStderr = stderr.replace(/\u001b\[[0-9;]*m/g, "").trim();
  const run: Run = buildOpenCodeRun({
    lines,
    children: children.sessions,
    prompts,
    runId,
    cwd,
    model: options.model ?? DEFAULT_MODEL,
    version: SUPPORTED_OPENCODE_VERSION,
    stderr: plainStderr,
    ...(stop ? { stop } : {}),
    durationMs: Math.round(performance.now() - entered),
  });
  const fellBack = /agent "([^"]+)" not found\. Falling back/.exec(plainStderr);
  const error = describeFailure({
    run,
    stop,
    options,
    exitCode,
    signal,
    spawnError,
    stderr: plainStderr,
    fellBack: fellBack?.[1],
  });
  if (children.problem)
    run.notes.push({ kind: "other", message: `subagent sessions not read: ${children.problem}` });
  if (!ripgrepDir) {
    run.notes.push({
      kind: "other",
      message: "no rg was found: OpenCode's glob and grep tools fail without it",
    });
  }
  const keepSandbox = keepOrRemoveSandbox(sandbox, options.keepSandbox, error !== undefined, redactor);
  const result: RunOpenCodeResult = redactor.value<RunOpenCodeResult>({
    ...liveRunResult({
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
    ...(ripgrepDir ? { ripgrep_dir: ripgrepDir } : {}),
  });
  writeFileSync(
    join(outputDir, RUN_FOLDER_FILES.stream),
    `${streamFile.map((line) => redactor.text(line)).join("\n")}\n`,
  );
  writeRunFolder(outputDir, runId, {
    result,
    agent: {
      cli: "opencode",
      prompts,
      ...(options.model ? { model: options.model } : {}),
      ...(options.agent ? { agent: options.agent } : {}),
      ...(options.permission ? { permission: options.permission } : {}),
      ...(options.autoApprove ? { autoApprove: true } : {}),
      ...(options.maxSteps !== undefined ? { maxTurns: options.maxSteps } : {}),
    },
  });
  return result;
}

/** The run's complete environment: nothing else of the caller's gets through. */
function runEnv(input: {
  options: RunOpenCodeOptions;
  dirs: Record<string, string>;
  marker: string;
  ripgrepDir: string | undefined;
}): Record<string, string> {
  const { options } = input;
  const env = inheritedEnv();
  if (input.ripgrepDir) env.PATH = [input.ripgrepDir, env.PATH].filter(Boolean).join(delimiter);
  const config = {
    $schema: "https://opencode.ai/config.json",
    ...options.config,
    model: options.model ?? DEFAULT_MODEL,
    autoupdate: false,
    share: "disabled",
    ...(options.permission ? { permission: options.permission } : {}),
    ...(options.baseUrl
      ? {
          provider: {
            anthropic: {
              options: {
                baseURL: `${options.baseUrl.replace(/\/+$/, "")}/v1`,
                apiKey: options.apiKey ?? "sk-evals-offline",
              },
            },
          },
        }
      : {}),
  };
  Object.assign(env, input.dirs, {
    TMP: input.dirs.TMPDIR,
    TEMP: input.dirs.TMPDIR,
    OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_SHARE: "1",
    // OpenCode npm-installs @opencode-ai/plugin into every config dir in the background; offline, npm
    // retries for ~75 s and the run waits. Offline mode makes that install fail at once.
    npm_config_offline: "true",
    FORCE_COLOR: "0",
    NO_COLOR: "1",
    [RUN_MARKER_ENV]: input.marker,
  });
  if (options.ignoreClaudeMd) env.OPENCODE_DISABLE_CLAUDE_CODE = "1";
  return applyEnvOverrides(env, options.env);
}

/**
 * OpenCode npm-installs @opencode-ai/plugin into each config dir at start (offline it fails, after
 * loading npm's code: ~0.4 s of CPU). Its installer skips a dir that has node_modules/ and a lock
 * file listing that package, so the run's own config dir gets both: the plugin is then as absent as
 * after the failed install. (A workspace's .opencode/ is left alone; there the install still fails.)
 */
function markPluginInstalled(configDir: string): void {
  mkdirSync(join(configDir, "node_modules"), { recursive: true });
  const dependencies = { "@opencode-ai/plugin": SUPPORTED_OPENCODE_VERSION };
  writeFileSync(join(configDir, "package-lock.json"), JSON.stringify({ packages: { "": { dependencies } } }));
}

/** The workspace's agent files, name -> markdown (`.opencode/agent/` and `.opencode/agents/`). */
function workspaceAgentFiles(cwd: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const folder of ["agent", "agents"]) {
    const dir = join(cwd, ".opencode", folder);
    if (!existsSync(dir)) continue;
    for (const file of readdirSync(dir)) {
      if (file.endsWith(".md")) files.set(file.slice(0, -3), readFileSync(join(dir, file), "utf8"));
    }
  }
  return files;
}

/** `--agent` must name an agent the run defines: OpenCode itself falls back to `build`, silently. */
function checkAgent(options: RunOpenCodeOptions, cwd: string): void {
  if (!options.agent) return;
  // name -> its definition's text, when it comes from a file (its `mode` decides whether --agent takes it).
  const known = new Map<string, string>(OPENCODE_PRIMARY_AGENTS.map((name) => [name, ""]));
  for (const name of Object.keys((options.config?.agent as Record<string, unknown> | undefined) ?? {})) {
    known.set(name, "");
  }
  for (const [name, text] of workspaceAgentFiles(cwd)) known.set(name, text);
  for (const [name, text] of Object.entries(options.agents ?? {})) known.set(name, text);
  const definition = known.get(options.agent);
  if (definition === undefined) {
    throw new UnknownAgentError(
      `runOpenCode: unknown agent ${JSON.stringify(options.agent)}; this run defines ${[...known.keys()].sort().join(", ")} ` +
        `(built-in, the agents option, config.agent, ${join(cwd, ".opencode", "agent")}/*.md)`,
    );
  }
  // OpenCode falls back to its default agent, silently, for a subagent given to --agent.
  if (frontmatterData(definition)?.mode === "subagent") {
    throw new UnknownAgentError(
      `runOpenCode: agent ${JSON.stringify(options.agent)} has mode: subagent; --agent takes only primary agents`,
    );
  }
}

/**
 * The subagent sessions of the run, any depth, with their assistant parts in order, read from
 * OpenCode's database (`opencode db`, offline; the JSON stream prints only the root session).
 */
async function readChildSessions(
  bin: string,
  cwd: string,
  env: Record<string, string>,
  lines: readonly OpenCodeStreamLine[],
): Promise<{ sessions: OpenCodeChildSession[]; problem?: string }> {
  // Only a `task` call makes a subagent session: without one, no need to start the CLI again.
  if (!lines.some((line) => line.part?.type === "tool" && line.part.tool === "task")) return { sessions: [] };
  // One query (each `opencode db` is a CLI start-up): every non-root session with its assistant parts.
  const sql =
    "select s.id as sid, s.parent_id, s.agent, s.title, p.id, p.message_id, p.data from session s " +
    "left join message m on m.session_id = s.id and json_extract(m.data, '$.role') = 'assistant' " +
    "left join part p on p.message_id = m.id where s.parent_id is not null " +
    "order by s.time_created, m.time_created, p.id";
  const out = await execa(bin, ["db", sql, "--format", "json"], {
    cwd,
    env,
    extendEnv: false,
    reject: false,
    timeout: 60_000,
  });
  let rows: {
    sid: string;
    parent_id: string;
    agent: string | null;
    title: string;
    id: string | null;
    message_id: string | null;
    data: string | null;
  }[];
  try {
    rows = JSON.parse(out.stdout);
  } catch {
    return {
      sessions: [],
      problem: `opencode db gave no JSON (exit ${out.exitCode}): ${String(out.stderr).slice(0, 300)}`,
    };
  }
  const sessions = new Map<string, OpenCodeChildSession>();
  for (const row of rows) {
    let session = sessions.get(row.sid);
    if (!session) {
      session = {
        id: row.sid,
        parentId: row.parent_id,
        ...(row.agent ? { agent: row.agent } : {}),
        title: row.title,
        parts: [],
      };
      sessions.set(row.sid, session);
    }
    if (row.id && row.data) {
      session.parts.push({
        ...(JSON.parse(row.data) as OpenCodePart),
        id: row.id,
        ...(row.message_id ? { messageID: row.message_id } : {}),
        sessionID: row.sid,
      });
    }
  }
  return { sessions: [...sessions.values()] };
}

function describeFailure(input: {
  run: Run;
  stop: RunnerStop | undefined;
  options: RunOpenCodeOptions;
  exitCode: number | null;
  signal: string | undefined;
  spawnError: string | undefined;
  stderr: string;
  fellBack: string | undefined;
}): string | undefined {
  if (input.stop?.kind === "timeout") {
    return `the run timed out after ${input.options.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms and was killed`;
  }
  if (input.stop?.kind === "aborted") return "the run was aborted and killed";
  if (input.stop?.kind === "api_error")
    return `opencode was retrying a failed model call and was stopped: ${input.stop.message}`;
  if (input.stop?.kind === "max_steps")
    return `the agent reached the maximum of ${input.stop.steps} steps and was stopped`;
  if (input.spawnError) return `opencode could not be started: ${input.spawnError}`;
  if (input.fellBack)
    return `opencode did not know the agent "${input.fellBack}" and fell back to its default agent`;
  const final = input.run.events.find((event) => event.type === "final_result");
  if (final?.type === "final_result" && final.is_error)
    return `opencode ended with an error: ${final.errors?.join("; ")}`;
  if (input.exitCode !== 0) {
    const how =
      input.exitCode === null
        ? `was killed by ${input.signal ?? "a signal"}`
        : `exited with code ${input.exitCode}`;
    const last = input.stderr.split("\n").filter(Boolean).pop();
    return `opencode ${how}${last ? `: ${last.slice(0, 300)}` : ""}`;
  }
  return undefined;
}

/** The last `retry` status OpenCode reported (attempt number and its message), if any. */
function readRetry(file: string): { attempt: number; message: string } | undefined {
  if (!existsSync(file)) return undefined;
  let last: { attempt: number; message: string } | undefined;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    try {
      const status = (JSON.parse(line) as { status?: { type?: string; attempt?: number; message?: string } })
        .status;
      if (status?.type === "retry")
        return { attempt: status.attempt ?? 1, message: status.message ?? "retrying" };
    } catch {
      // A line being written.
    }
  }
  return last;
}
