/**
 * The command line of one headless run. Kept apart from spawning so it can be tested and shown to
 * the user as the command to reproduce a run.
 */

import type { PermissionMode } from "@evals/core";

/** `--permission-mode` values: @evals/core's PERMISSION_MODES (re-exported here for existing imports). */
export type { PermissionMode };

/** A custom subagent definition for `--agents`. */
export interface AgentDefinition {
  description: string;
  prompt: string;
  tools?: string[];
  model?: string;
}

/** The CLI flags runAgent can set. Every one maps to one documented `claude` option. */
export interface ClaudeFlags {
  /** `--model` */
  model?: string;
  /** `--max-turns` (works in 2.1.330 although --help does not list it). */
  maxTurns?: number;
  /** `--allowedTools`, e.g. `["Bash(git *)", "Read"]`. */
  allowedTools?: string[];
  /** `--disallowedTools`. */
  disallowedTools?: string[];
  /** `--tools`: the built-in tools available at all (`[]` for none). */
  tools?: string[];
  /** `--permission-mode`. */
  permissionMode?: PermissionMode;
  /** `--dangerously-skip-permissions` (as root this needs IS_SANDBOX=1, which runAgent sets). */
  dangerouslySkipPermissions?: boolean;
  /** `--session-id` (a UUID). */
  sessionId?: string;
  /** `--system-prompt`: replaces the default system prompt. */
  systemPrompt?: string;
  /** `--append-system-prompt`. */
  appendSystemPrompt?: string;
  /** `--mcp-config`: files or configs (objects are passed as JSON). */
  mcpConfig?: string | Record<string, unknown> | (string | Record<string, unknown>)[];
  /** `--strict-mcp-config`: only the servers of mcpConfig. */
  strictMcpConfig?: boolean;
  /** `--add-dir`: more directories the agent may access. */
  addDirs?: string[];
  /** `--plugin-dir`: plugins (a plugin folder, a .zip, or a folder of plugins) for this run only. */
  pluginDirs?: string[];
  /** `--agents`: custom subagents, as definitions or a JSON file. */
  agents?: Record<string, AgentDefinition> | string;
  /** `--setting-sources`: which of the user/project/local settings files load. */
  settingSources?: ("user" | "project" | "local")[];
  /** `--effort`. */
  effort?: "low" | "medium" | "high" | "xhigh" | "max";
  /** `--include-hook-events`: hook lifecycle lines in the stream. */
  includeHookEvents?: boolean;
  /** Anything else, placed before the prompt. */
  extraArgs?: string[];
}

export interface ClaudeArgsInput extends ClaudeFlags {
  /** One prompt (`-p`), or several (a multi-turn conversation fed as stream-json on stdin). */
  prompts: string[];
  /** The --settings file to load. */
  settingsFile?: string;
}

/**
 * The argv (without the executable) for one headless stream-json run. The prompt is not in it:
 * `claude -p` reads it from stdin (runAgent writes it there).
 */
export function claudeArgs(input: ClaudeArgsInput): string[] {
  if (input.prompts.length === 0) throw new Error("runAgent needs at least one prompt");
  const multiTurn = input.prompts.length > 1;
  const args = ["-p", "--output-format", "stream-json", "--verbose"];
  if (multiTurn) args.push("--input-format", "stream-json", "--replay-user-messages");
  if (input.settingsFile) args.push("--settings", input.settingsFile);
  if (input.model) args.push("--model", input.model);
  if (input.maxTurns !== undefined) {
    if (!Number.isInteger(input.maxTurns) || input.maxTurns < 1) {
      throw new Error(`maxTurns must be a positive integer, got ${input.maxTurns}`);
    }
    args.push("--max-turns", String(input.maxTurns));
  }
  if (input.permissionMode) args.push("--permission-mode", input.permissionMode);
  if (input.dangerouslySkipPermissions) args.push("--dangerously-skip-permissions");
  // One argv entry per rule: a rule such as "Bash(git add:*, git commit:*)" holds a comma.
  if (input.allowedTools?.length) args.push("--allowedTools", ...input.allowedTools);
  if (input.disallowedTools?.length) args.push("--disallowedTools", ...input.disallowedTools);
  if (input.tools) args.push("--tools", ...(input.tools.length > 0 ? input.tools : [""]));
  if (input.sessionId) args.push("--session-id", input.sessionId);
  if (input.systemPrompt !== undefined) args.push("--system-prompt", input.systemPrompt);
  if (input.appendSystemPrompt !== undefined) args.push("--append-system-prompt", input.appendSystemPrompt);
  for (const config of toList(input.mcpConfig)) {
    args.push("--mcp-config", typeof config === "string" ? config : JSON.stringify(config));
  }
  if (input.strictMcpConfig) args.push("--strict-mcp-config");
  for (const dir of input.addDirs ?? []) args.push("--add-dir", dir);
  for (const dir of input.pluginDirs ?? []) args.push("--plugin-dir", dir);
  if (input.agents !== undefined) {
    args.push("--agents", typeof input.agents === "string" ? input.agents : JSON.stringify(input.agents));
  }
  if (input.settingSources) args.push("--setting-sources", input.settingSources.join(","));
  if (input.effort) args.push("--effort", input.effort);
  if (input.includeHookEvents) args.push("--include-hook-events");
  args.push(...(input.extraArgs ?? []));
  // The prompt is not an argument: runAgent writes it to stdin, so a prompt of any
  // size fits (an argument over 128 KiB fails with E2BIG) and never shows in the process list.
  return args;
}

/** One line of `--input-format stream-json`: a user message. */
export function userMessageLine(text: string): string {
  return `${JSON.stringify({ type: "user", message: { role: "user", content: text }, parent_tool_use_id: null })}\n`;
}

function toList<T>(value: T | T[] | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}
