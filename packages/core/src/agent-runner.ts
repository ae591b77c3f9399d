import { isAbsolute, resolve } from "node:path";
import type { z } from "zod";
import type { AgentRunResult } from "./agent-run.js";
import type { RedactOptions } from "./redact.js";

/**
 * The agent-neutral runner contract: one agent CLI (Claude Code, OpenCode, ...) run once, headless and
 * hermetic, its run returned as an AgentRunResult. The engine (@evals/harness) calls runners only
 * through it; each runner package exports one.
 */

/** The wire formats @evals/vcr's loopback model server speaks: the one a runner's CLI talks. */
export const MODEL_APIS = ["anthropic-messages", "openai-responses", "gemini"] as const;
export type ModelApi = (typeof MODEL_APIS)[number];

/**
 * Options every agent CLI shares (a case file's `agent:` block without its `options`). Each runner maps
 * them onto its CLI, or throws an UnsupportedOptionError naming the one it cannot honour.
 */
export interface AgentRunOptions {
  /** The prompt, or several prompts: one user turn each, in the same session. */
  prompt: string | string[];
  /** The agent's working folder (default process.cwd()): the trial's fixture copy or worktree. */
  cwd?: string;
  /** The run's id (default: a fresh one): its folder is `<outputRoot>/<runId>`. */
  runId?: string;
  /** Where the run folder goes (default: EVALS_OUTPUT_DIR, else the current directory's test-output). */
  outputRoot?: string;
  /** Extra environment for the CLI; it wins over what the runner sets. `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  /** Kill the run after this long (default 300000 ms); the result then says `timed_out`. */
  timeoutMs?: number;
  /** How long processes get between SIGTERM and SIGKILL when the run is stopped (default 2000 ms). */
  killGraceMs?: number;
  /** Aborting stops the run like a timeout does (vitest's `context.signal` fits here). */
  signal?: AbortSignal;
  /** The most model turns (a runner whose CLI has no turn limit enforces it itself). */
  maxTurns?: number;
  /** The built-in tools available at all, in canonical names (Bash, Read, Edit, Write, Glob, Grep, ...); `[]` for none. */
  tools?: string[];
  /** Tools (or tool rules such as `Bash(git *)`) that run without asking. */
  allowedTools?: string[];
  /** Tools (or tool rules) the agent may not use. */
  disallowedTools?: string[];
  /** The model, as the CLI names it. */
  model?: string;
  /** The model server's url: the loopback server the harness started for the runner's `modelApi`. */
  baseUrl?: string;
  /** The API key the CLI sends (default: a dummy one when `baseUrl` is set). */
  apiKey?: string;
  /**
   * Capture what the agent did through the CLI's hooks or plugins as well as its stream (default true).
   * A runner whose CLI offers several ways to deliver hook events may take "http" or "command" (Claude
   * Code: HTTP hooks to a collector in this process, or the `evals-hook` command); others treat both as true.
   */
  capture?: boolean | "http" | "command";
  /** Keep the run's private config/home/tmp folder: "on-failure" (default), "always" or "never". */
  keepSandbox?: "on-failure" | "always" | "never";
  /** More secrets to keep out of every file the run leaves and out of its result. */
  redact?: Omit<RedactOptions, "env">;
}

/** One agent CLI, as the engine sees it. */
export interface AgentRunner<Options = Record<string, unknown>> {
  /** The name a case's `agent.cli` uses: "claude-code", "opencode", ... */
  readonly cli: string;
  /** Which wire format @evals/vcr serves the CLI when the harness replays, records or scripts its model. */
  readonly modelApi: ModelApi;
  /** Validates the runner's own options (a case's `agent.options`); its parse fills in defaults. */
  readonly optionsSchema: z.ZodType<Options>;
  /**
   * The own options that name files or folders (Claude Code's settings, pluginDirs ...): a case file's
   * relative paths in them are resolved against the case file (see resolveOptionPaths).
   */
  readonly pathOptions?: readonly string[];
  /** Why the CLI cannot run here (not installed, unsupported version ...), or undefined when it can. */
  unavailable?(): string | undefined;
  /** Runs the CLI once. Throws only when the run could not start; what goes wrong after is in the result. */
  run(shared: AgentRunOptions, options: Options): Promise<AgentRunResult>;
}

/** The options type of a runner. */
export type RunnerOptionsOf<Runner> = Runner extends AgentRunner<infer Options> ? Options : never;

/** Thrown by a runner given a shared option its CLI cannot honour: names the option and what to use instead. */
export class UnsupportedOptionError extends Error {
  override readonly name = "UnsupportedOptionError";
  constructor(
    /** The runner's `cli`. */
    readonly cli: string,
    /** The shared option, e.g. `tools`. */
    readonly option: keyof AgentRunOptions,
    /** What to use instead, in one sentence. */
    readonly instead: string,
  ) {
    super(`${cli} cannot honour the shared option \`${String(option)}\`: ${instead}`);
  }
}

/** Thrown when a runner's own options do not fit its optionsSchema; `issues` are `path: message` lines. */
export class RunnerOptionsError extends Error {
  override readonly name = "RunnerOptionsError";
  constructor(
    readonly cli: string,
    readonly issues: { path: (string | number)[]; message: string }[],
  ) {
    super(
      `${cli} runner options are invalid:\n${issues
        .map((issue) => `  - ${issue.path.length > 0 ? issue.path.join(".") : "(options)"}: ${issue.message}`)
        .join("\n")}`,
    );
  }
}

/** `options` validated (and defaulted) by the runner's optionsSchema; a RunnerOptionsError when they do not fit. */
export function parseRunnerOptions<Options>(runner: AgentRunner<Options>, options: unknown): Options {
  const parsed = runner.optionsSchema.safeParse(options ?? {});
  if (parsed.success) return parsed.data;
  throw new RunnerOptionsError(
    runner.cli,
    parsed.error.issues.map((issue) => ({
      path: issue.path.map((key) => (typeof key === "symbol" ? String(key) : key)),
      message: issue.message,
    })),
  );
}

/**
 * `options` with each relative path in the options named `pathOptions` made absolute against `base`: a
 * string, or the strings of a list. Objects (settings or agent definitions given inline) stay as they are.
 */
export function resolveOptionPaths(
  options: Record<string, unknown>,
  pathOptions: readonly string[],
  base: string,
): Record<string, unknown> {
  const path = (value: unknown) =>
    typeof value === "string" && !isAbsolute(value) ? resolve(base, value) : value;
  const resolved = { ...options };
  for (const name of pathOptions) {
    const value = resolved[name];
    if (value !== undefined) resolved[name] = Array.isArray(value) ? value.map(path) : path(value);
  }
  return resolved;
}
