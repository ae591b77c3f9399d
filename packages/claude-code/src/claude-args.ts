/**
 * The command line of one headless run. Kept apart from spawning so it can be tested and shown to
 * the user as the command to reproduce a run.
 */

import type { AgentRunOptions } from "@evals/core";
import type { ClaudeCodeOptions } from "./options.js";

/** The CLI flags runAgent can set: the shared options `claude` takes, and Claude Code's own (less what runAgent handles). */
export type ClaudeFlags = Pick<
  AgentRunOptions,
  "model" | "maxTurns" | "allowedTools" | "disallowedTools" | "tools"
> &
  Omit<ClaudeCodeOptions, "settings" | "claudeBin">;

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
