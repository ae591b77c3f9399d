import { type AgentRunner, type AgentRunOptions, UnsupportedOptionError } from "@evals/core";
import { z } from "zod";
import { type RunOpenCodeOptions, type RunOpenCodeResult, runOpenCode } from "./run-opencode.js";

/**
 * OpenCode's own options (a case's `agent.options` when `agent.cli` is opencode). The shared ones
 * (model, maxTurns, env ...) are @evals/core's AgentRunOptions.
 */
export const OpenCodeOptionsSchema = z.strictObject({
  /** `--agent NAME`: a built-in primary agent (build, plan), one of `agents`, or one in the cwd's .opencode/agent/. */
  agentName: z.string().min(1).optional(),
  /** Custom agent files, NAME -> the markdown (YAML frontmatter + prompt), written to the run's private config dir. */
  agents: z.record(z.string(), z.string()).optional(),
  /** OpenCode's `permission` config, e.g. `{ bash: { "*": "allow", "rm *": "ask" } }`. */
  permission: z.record(z.string(), z.unknown()).optional(),
  /** `--auto`: grant every permission OpenCode asks for, except what the config denies (default false: asks are rejected). */
  autoApprove: z.boolean().optional(),
  /** More OpenCode config, merged over the runner's (`provider`, `autoupdate`, `share` stay the runner's). */
  config: z.record(z.string(), z.unknown()).optional(),
  /** The session title (default "evals run"); `false` lets OpenCode ask the model for one. */
  title: z.union([z.string(), z.literal(false)]).optional(),
  /** Stop after this many model steps that asked for tools (default: the shared maxTurns). */
  maxSteps: z.number().int().positive().optional(),
  /** Keep the workspace's CLAUDE.md out of the system prompt. */
  ignoreClaudeMd: z.boolean().optional(),
  /** Retries of a failed model call before the run stops as an API error (default 0). */
  apiRetries: z.number().int().nonnegative().optional(),
  /** The `opencode` executable (default: EVALS_OPENCODE_BIN, node_modules/.bin, PATH). */
  opencodeBin: z.string().min(1).optional(),
});
export type OpenCodeOptions = z.infer<typeof OpenCodeOptionsSchema>;

/** What to use instead of each shared option OpenCode has no equivalent of. */
const UNSUPPORTED: Partial<Record<keyof AgentRunOptions, string>> = {
  // OpenCode's `edit` permission also covers write and patch: a tool list has no exact equivalent.
  tools:
    "take tools away with OpenCode's permission instead (agent.options.permission: { bash: \"deny\" }) or a custom agent file's `tools: { bash: false }`",
  allowedTools:
    'allow calls with OpenCode\'s permission instead (agent.options.permission: { bash: { "git *": "allow" } }) or agent.options.autoApprove',
  disallowedTools:
    'deny calls with OpenCode\'s permission instead (agent.options.permission: { bash: { "rm *": "deny" } })',
};

/** runOpenCode's options for the shared options and OpenCode's own; a shared option it cannot honour throws. */
export function openCodeOptions(shared: AgentRunOptions, options: OpenCodeOptions = {}): RunOpenCodeOptions {
  for (const [name, instead] of Object.entries(UNSUPPORTED)) {
    if (shared[name as keyof AgentRunOptions] !== undefined) {
      throw new UnsupportedOptionError("opencode", name as keyof AgentRunOptions, instead);
    }
  }
  const {
    maxTurns,
    capture,
    tools: _tools,
    allowedTools: _allowed,
    disallowedTools: _disallowed,
    ...rest
  } = shared;
  const { agentName, maxSteps, ...own } = options;
  const steps = maxSteps ?? maxTurns;
  return {
    ...rest,
    // OpenCode has one way to capture (its plugin): "http" and "command" are Claude Code's, so any is on.
    ...(capture !== undefined ? { capture: capture !== false } : {}),
    ...own,
    ...(agentName !== undefined ? { agent: agentName } : {}),
    ...(steps !== undefined ? { maxSteps: steps } : {}),
  };
}

/**
 * OpenCode as an @evals/core AgentRunner: `new RunnerRegistry([claudeCodeRunner, openCodeRunner])` in
 * @evals/harness, then a case's `agent.cli: opencode`. The shared options map onto runOpenCode's
 * (`maxTurns` -> `maxSteps`); its own (`agent.options`) are OpenCodeOptions.
 */
export const openCodeRunner: AgentRunner<OpenCodeOptions> = {
  cli: "opencode",
  modelApi: "anthropic-messages",
  optionsSchema: OpenCodeOptionsSchema,
  run: (shared, options): Promise<RunOpenCodeResult> => runOpenCode(openCodeOptions(shared, options)),
};
