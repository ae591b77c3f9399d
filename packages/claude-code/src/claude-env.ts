import { userInfo } from "node:os";
import { join, resolve } from "node:path";
import {
  INHERITED_ENV,
  isLoopbackUrl,
  NETWORK_ENV,
  RUN_MARKER_ENV,
  type Sandbox,
  stableEnv,
} from "@evals/core/process";

export interface HermeticEnvInput {
  sandbox: Sandbox;
  runId: string;
  /** The root under which the hooks write test-output/<runId>/. */
  outputRoot: string;
  /** Marks every process of the run (see @evals/core/process's process tree). */
  marker: string;
  baseUrl?: string;
  apiKey?: string;
  /** Set IS_SANDBOX=1 (needed as root for bypassPermissions / --dangerously-skip-permissions). */
  isSandbox?: boolean;
  /** The caller's environment (default process.env); only INHERITED_ENV (and NETWORK_ENV) is taken from it. */
  parentEnv?: NodeJS.ProcessEnv;
  /** Last word: these are set (or, when undefined, removed). */
  env?: Record<string, string | undefined>;
}

/** The complete environment of one run. Nothing else from the caller's environment gets through. */
export function hermeticEnv(input: HermeticEnvInput): Record<string, string> {
  const parent = input.parentEnv ?? process.env;
  const env: Record<string, string> = {};
  const remote = !input.baseUrl || !isLoopbackUrl(input.baseUrl);
  for (const name of [...INHERITED_ENV, ...(remote ? NETWORK_ENV : [])]) {
    const value = parent[name];
    if (value !== undefined) env[name] = value;
  }
  Object.assign(env, stableEnv(), {
    HOME: input.sandbox.home,
    CLAUDE_CONFIG_DIR: input.sandbox.configDir,
    TMPDIR: input.sandbox.tmpDir,
    TMP: input.sandbox.tmpDir,
    TEMP: input.sandbox.tmpDir,
    TEST_MODE: "true",
    TEST_RUN_ID: input.runId,
    EVALS_OUTPUT_DIR: input.outputRoot,
    [RUN_MARKER_ENV]: input.marker,
  });
  if (input.baseUrl) env.ANTHROPIC_BASE_URL = input.baseUrl;
  const apiKey = input.apiKey ?? parent.ANTHROPIC_API_KEY ?? (input.baseUrl ? "sk-evals-offline" : undefined);
  if (apiKey) env.ANTHROPIC_API_KEY = apiKey;
  if (input.isSandbox) env.IS_SANDBOX = "1";
  for (const [name, value] of Object.entries(input.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/**
 * The config dir the CLI uses with this env, where it writes the session transcript. As 2.1.330 does:
 * CLAUDE_CONFIG_DIR as given, even empty or `~` (no expansion), relative to the CLI's cwd; unset,
 * $HOME/.claude, and without a HOME (or an empty one) the user's home of the password database.
 */
export function cliConfigDir(env: Record<string, string>, cwd: string): string {
  const given = env.CLAUDE_CONFIG_DIR;
  if (given !== undefined) return resolve(cwd, given);
  return join(env.HOME ? resolve(cwd, env.HOME) : userInfo().homedir, ".claude");
}
