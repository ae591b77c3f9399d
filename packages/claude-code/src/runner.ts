import type { AgentRunner } from "@evals/core";
import { claudeAvailable } from "./claude-bin.js";
import { CLAUDE_CODE_PATH_OPTIONS, type ClaudeCodeOptions, ClaudeCodeOptionsSchema } from "./options.js";
import { runAgent } from "./run-agent.js";

/**
 * Claude Code as an @evals/core AgentRunner: the shared options map onto `claude`'s flags one to one,
 * its own options (ClaudeCodeOptions, a case's `agent.options`) are added; runAgent runs it.
 *
 * ```ts
 * new RunnerRegistry([claudeCodeRunner, openCodeRunner]); // @evals/harness
 * ```
 */
export const claudeCodeRunner: AgentRunner<ClaudeCodeOptions> = {
  cli: "claude-code",
  modelApi: "anthropic-messages",
  optionsSchema: ClaudeCodeOptionsSchema,
  pathOptions: CLAUDE_CODE_PATH_OPTIONS,
  unavailable: () => {
    const availability = claudeAvailable();
    return availability.available ? undefined : availability.reason;
  },
  run: (shared, options) => runAgent({ ...shared, ...options }),
};
