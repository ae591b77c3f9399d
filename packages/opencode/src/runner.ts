import type { AgentRunner, AgentRunnerOptions } from "@evals/harness";
import { type RunOpenCodeOptions, type RunOpenCodeResult, runOpenCode } from "./run-opencode.js";

/** runAgent options that only mean something to Claude Code: given to OpenCode, an error, not ignored. */
const CLAUDE_ONLY = [
  "allowedTools",
  "disallowedTools",
  "tools",
  "permissionMode",
  "dangerouslySkipPermissions",
  "sessionId",
  "systemPrompt",
  "appendSystemPrompt",
  "mcpConfig",
  "strictMcpConfig",
  "addDirs",
  "pluginDirs",
  "agents",
  "settingSources",
  "effort",
  "includeHookEvents",
  "extraArgs",
  "settings",
  "claudeBin",
] as const;

/** The RunOpenCodeOptions of a harness run: the shared options mapped, OpenCode's own (`more`) added. */
export function openCodeOptions(
  options: AgentRunnerOptions,
  more: Partial<RunOpenCodeOptions> = {},
): RunOpenCodeOptions {
  const given = options as unknown as Record<string, unknown>;
  if (given.tools !== undefined) {
    // Not mapped: OpenCode's `edit` permission also covers write and patch, so a tool list has no exact equivalent.
    throw new Error(
      `OpenCode runs without Claude Code's tools (a case's agent.tools, claude --tools): take tools away with OpenCode's own permission instead, e.g. openCodeRunnerWith({ permission: { bash: "deny" } }) or a custom agent file's \`tools: { bash: false }\``,
    );
  }
  const claudeOnly = CLAUDE_ONLY.filter((name) => given[name] !== undefined);
  if (claudeOnly.length > 0) {
    throw new Error(
      `OpenCode runs without Claude Code's ${claudeOnly.join(", ")}: use OpenCode's own (a custom agent file's tools and permission, \`permission\`, \`agents\`: openCodeRunnerWith({...}))`,
    );
  }
  const { agentName, maxTurns, onStreamLine: _claudeLines, redact: _redact, ...shared } = options;
  const mapped: RunOpenCodeOptions = { ...(shared as RunOpenCodeOptions), ...more };
  if (agentName !== undefined) mapped.agent = agentName;
  if (maxTurns !== undefined && more.maxSteps === undefined) mapped.maxSteps = maxTurns;
  return mapped;
}

/** An AgentRunner running OpenCode with `more` of its own options (permission, agents, config ...). */
export function openCodeRunnerWith(more: Partial<RunOpenCodeOptions>): AgentRunner {
  return (options): Promise<RunOpenCodeResult> => runOpenCode(openCodeOptions(options, more));
}

/**
 * The harness's runner for OpenCode: `describeEval(..., { agent: openCodeRunner })`, `runCase(trial,
 * c, { runner: openCodeRunner })`, or `agent: "opencode"` / a case's `agent.cli: opencode` (which
 * load it as `agentRunner`). The shared runAgent options map onto runOpenCode's (`maxTurns` ->
 * `maxSteps`, `agentName` -> `agent`); Claude Code's own options are refused.
 */
export const openCodeRunner: AgentRunner = openCodeRunnerWith({});

/** What the harness loads for `agent: "opencode"`. */
export const agentRunner: AgentRunner = openCodeRunner;
