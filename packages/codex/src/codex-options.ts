import { z } from "zod";

/**
 * Codex's own options (a case's `agent.options` when `agent.cli` is codex), validated by the
 * runner's optionsSchema.
 */
export const CodexOptionsSchema = z
  .object({
    /**
     * The sandbox of the commands Codex runs: read-only (Codex's default), workspace-write,
     * danger-full-access, or "bypass" (`--dangerously-bypass-approvals-and-sandbox`). Default
     * workspace-write: the agent may edit its working folder.
     */
    sandbox: z.enum(["read-only", "workspace-write", "danger-full-access", "bypass"]).optional(),
    /** When Codex asks before running a command (`approval_policy`; `exec` cannot ask, default never). */
    approvalPolicy: z.enum(["never", "on-request", "on-failure", "untrusted"]).optional(),
    /** More config.toml values as dotted keys (`{"model_reasoning_effort": "low"}`), given as `-c key=value`. */
    config: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]))
      .optional(),
    /**
     * Hooks, as `hooks.json`'s `hooks` object (`{"PreToolUse": [{"matcher": "*", "hooks": [...]}]}`):
     * written to the run's CODEX_HOME and run with `--dangerously-bypass-hook-trust` (exec skips
     * hooks nobody reviewed).
     */
    hooks: z.record(z.string(), z.array(z.unknown())).optional(),
    /** HTTP retries of a failed model request (`request_max_retries`, default 0; Codex's own is 4). */
    requestMaxRetries: z.number().int().nonnegative().optional(),
    /** Reconnects of a broken model stream (`stream_max_retries`, default 0; Codex's own is 5). */
    streamMaxRetries: z.number().int().nonnegative().optional(),
    /** The `codex` executable (default: EVALS_CODEX_BIN, node_modules/.bin, PATH). */
    codexBin: z.string().optional(),
  })
  .strict();

export type CodexOptions = z.infer<typeof CodexOptionsSchema>;

/** The model Codex is told it runs when the case names none: one Codex knows the metadata of. */
export const DEFAULT_CODEX_MODEL = "gpt-5.5";

/** A TOML value: strings as basic strings (JSON's escapes are TOML's), arrays of them. */
function toml(value: string | number | boolean | string[]): string {
  if (Array.isArray(value)) return `[${value.map((item) => JSON.stringify(item)).join(", ")}]`;
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

/**
 * The run's `$CODEX_HOME/config.toml`: the loopback model provider, and every feature that would
 * reach the network (update check, analytics, feedback, plugins, apps) off. The workspace-write
 * sandbox leaves `/tmp` out of its writable roots (the run has its own TMPDIR instead): for each
 * writable root Codex mounts a read-only `.git` over `<root>/.git`, and for `/tmp` that creates an
 * empty `/tmp/.git` on the machine while a command runs, which makes `/tmp` the git root of every
 * folder in it for any other agent (Claude Code then keys its memory folder `-tmp`).
 */
export function codexConfigToml(input: {
  baseUrl: string;
  model: string;
  requestMaxRetries: number;
  streamMaxRetries: number;
  approvalPolicy?: string;
}): string {
  return [
    `model = ${toml(input.model)}`,
    `model_provider = "evals"`,
    "check_for_update_on_startup = false",
    ...(input.approvalPolicy ? [`approval_policy = ${toml(input.approvalPolicy)}`] : []),
    "[sandbox_workspace_write]",
    // Keeps /tmp/.git from appearing on the machine (see above).
    "exclude_slash_tmp = true",
    "[analytics]",
    "enabled = false",
    "[feedback]",
    "enabled = false",
    "[features]",
    "plugins = false",
    "remote_plugin = false",
    "apps = false",
    "[model_providers.evals]",
    `name = "evals loopback"`,
    `base_url = ${toml(`${input.baseUrl.replace(/\/+$/, "")}/v1`)}`,
    `env_key = "EVALS_CODEX_API_KEY"`,
    `wire_api = "responses"`,
    `request_max_retries = ${input.requestMaxRetries}`,
    `stream_max_retries = ${input.streamMaxRetries}`,
    "",
  ].join("\n");
}

/** `-c key=value` arguments for config overrides. */
export function configArgs(config: CodexOptions["config"] = {}): string[] {
  return Object.entries(config).flatMap(([key, value]) => ["-c", `${key}=${toml(value)}`]);
}
