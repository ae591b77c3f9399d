import { PermissionModeSchema } from "@evals/core";
import { z } from "zod";

/** A custom subagent, as Claude Code's `--agents` takes it. */
export const AgentDefinitionSchema = z.strictObject({
  description: z.string().min(1),
  /** The subagent's system prompt. */
  prompt: z.string().min(1),
  tools: z.array(z.string()).optional(),
  model: z.string().optional(),
});
export type AgentDefinition = z.infer<typeof AgentDefinitionSchema>;

/** `--mcp-config`: a config file or a config object. */
const McpConfigSchema = z.union([z.string().min(1), z.record(z.string(), z.unknown())]);

/**
 * Claude Code's own options (a case's `agent.options` when `agent.cli` is claude-code): each maps to one
 * documented `claude` flag. The shared ones (model, maxTurns, tools, allowedTools ...) are @evals/core's
 * AgentRunOptions.
 */
export const ClaudeCodeOptionsSchema = z.strictObject({
  /** `--permission-mode`. */
  permissionMode: PermissionModeSchema.optional(),
  /** `--dangerously-skip-permissions` (as root this needs IS_SANDBOX=1, which runAgent sets). */
  dangerouslySkipPermissions: z.boolean().optional(),
  /** `--session-id` (a UUID). */
  sessionId: z.string().min(1).optional(),
  /** `--system-prompt`: replaces the default system prompt. */
  systemPrompt: z.string().optional(),
  /** `--append-system-prompt`: added to the default system prompt. */
  appendSystemPrompt: z.string().optional(),
  /** `--settings`: a settings JSON file, or the settings themselves (the capture hooks are merged in). */
  settings: z.union([z.string().min(1), z.record(z.string(), z.unknown())]).optional(),
  /** `--setting-sources`: which of the user/project/local settings files load; `[]` loads none. */
  settingSources: z.array(z.enum(["user", "project", "local"])).optional(),
  /** `--mcp-config`: MCP server config files or objects. */
  mcpConfig: z.union([McpConfigSchema, z.array(McpConfigSchema)]).optional(),
  /** `--strict-mcp-config`: only the servers of mcpConfig. */
  strictMcpConfig: z.boolean().optional(),
  /** `--add-dir`: more folders the agent may use. */
  addDirs: z.array(z.string().min(1)).optional(),
  /** `--plugin-dir`: plugins (a plugin folder, a .zip, or a folder of plugins) for this run only. */
  pluginDirs: z.array(z.string().min(1)).optional(),
  /**
   * `--agents`: custom subagents by name, or a JSON file that holds them. A project's own subagents
   * (`.claude/agents/*.md`) come with the fixture instead.
   */
  agents: z.union([z.string().min(1), z.record(z.string(), AgentDefinitionSchema)]).optional(),
  /** `--effort`. */
  effort: z.enum(["low", "medium", "high", "xhigh", "max"]).optional(),
  /** `--include-hook-events`: hook lifecycle lines in the stream. */
  includeHookEvents: z.boolean().optional(),
  /** More `claude` arguments, placed before the prompt. */
  extraArgs: z.array(z.string()).optional(),
  /** The `claude` executable (default: EVALS_CLAUDE_BIN, node_modules/.bin from the run's `cwd` up, then from process.cwd() up, PATH). */
  claudeBin: z.string().min(1).optional(),
});
export type ClaudeCodeOptions = z.infer<typeof ClaudeCodeOptionsSchema>;

/** The options that name files or folders: a case file's relative paths in them resolve against it. */
export const CLAUDE_CODE_PATH_OPTIONS = ["settings", "mcpConfig", "addDirs", "pluginDirs", "agents"] as const;
