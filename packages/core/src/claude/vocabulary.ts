import { z } from "zod";

/**
 * Claude Code's vocabulary, in one place: tool names and their aliases, which tools delegate, read,
 * write or execute, the permission modes and the result subtypes. Every package asks here instead of
 * keeping its own list (observed with claude 2.1.330; see shared/reference/claude-code-cli.md).
 */

/**
 * Tool names that mean the same tool. The stream says `Task` where hooks (and the model's tool list)
 * say `Agent`, depending on the version; both start a subagent. Keys are aliases, values canonical.
 */
const TOOL_ALIASES: Readonly<Record<string, string>> = { Task: "Agent" };

/**
 * The name a tool is compared by: aliases folded into one canonical name (`Task` -> `Agent`).
 * A Run keeps the name that was seen; matching and rules compare canonical names.
 */
export function canonicalToolName(name: string): string {
  return Object.hasOwn(TOOL_ALIASES, name) ? (TOOL_ALIASES[name] as string) : name;
}

/** Whether two tool names are the same tool (`Task` and `Agent` are). */
export function sameTool(a: string, b: string): boolean {
  return canonicalToolName(a) === canonicalToolName(b);
}

/** Every name a tool is known by, canonical first: `Agent` -> `["Agent", "Task"]`. */
export function toolNameVariants(name: string): string[] {
  const canonical = canonicalToolName(name);
  const aliases = Object.keys(TOOL_ALIASES).filter((alias) => TOOL_ALIASES[alias] === canonical);
  return [canonical, ...aliases];
}

/** Built-in Claude Code tools (2.1.330's init line, plus the ones hooks and older versions name). */
export const BUILTIN_TOOLS = [
  "Agent",
  "Task",
  "AskUserQuestion",
  "Bash",
  "BashOutput",
  "CronCreate",
  "CronDelete",
  "CronList",
  "Edit",
  "EnterWorktree",
  "ExitPlanMode",
  "ExitWorktree",
  "Glob",
  "Grep",
  "KillShell",
  "LS",
  "ListAgents",
  "Monitor",
  "MultiEdit",
  "NotebookEdit",
  "Read",
  "ReportFindings",
  "ScheduleWakeup",
  "SendMessage",
  "Skill",
  "SlashCommand",
  "TaskStop",
  "TodoWrite",
  "ToolSearch",
  "WebFetch",
  "WebSearch",
  "Workflow",
  "Write",
] as const;

const builtinTools = new Set<string>(BUILTIN_TOOLS);

/** Whether a name is a tool Claude Code knows: a built-in, or an MCP tool (`mcp__server__tool`). */
export function isKnownToolName(name: string): boolean {
  return builtinTools.has(name) || name.startsWith("mcp__");
}

/**
 * Built-in tools that a version may not offer: claude 2.1.330's init line lists no Grep or Glob (its
 * agent searches through Bash). Hooks never say which tools were offered, so a hooks-only run cannot
 * tell whether the agent had these.
 */
export const SOMETIMES_OFFERED_TOOLS = ["Glob", "Grep"] as const;

/** Tools that start a subagent. */
export const DELEGATION_TOOLS = ["Agent", "Task"] as const;

/** Tools that change a file that is there (a Write may create one). */
export const FILE_EDIT_TOOLS = ["Edit", "MultiEdit", "NotebookEdit"] as const;

/** Tools that write a file. */
export const FILE_WRITE_TOOLS = ["Write", ...FILE_EDIT_TOOLS] as const;

/** Tools that only look (a Bash command may look too; that is the command's business). */
export const READ_TOOLS = ["Read", "Glob", "Grep", "LS", "WebFetch", "WebSearch"] as const;

/** Tools that change something themselves: a shell, a file. Delegation and skills are not execution. */
export const EXECUTION_TOOLS = ["Bash", ...FILE_WRITE_TOOLS] as const;

/** Tools through which the agent asks the user something. */
export const ASK_TOOLS = ["AskUserQuestion"] as const;

/** Tools that organize the work (plan, ask, load a skill or a tool) rather than do it. */
export const BOOKKEEPING_TOOLS = ["TodoWrite", ...ASK_TOOLS, "ExitPlanMode", "Skill", "ToolSearch"] as const;

const delegationTools = new Set<string>(DELEGATION_TOOLS);
const fileWriteTools = new Set<string>(FILE_WRITE_TOOLS);
const fileEditTools = new Set<string>(FILE_EDIT_TOOLS);
const bookkeepingTools = new Set<string>(BOOKKEEPING_TOOLS);
const readTools = new Set<string>(READ_TOOLS);
const executionTools = new Set<string>(EXECUTION_TOOLS);

export function isDelegationTool(name: string): boolean {
  return delegationTools.has(name);
}

export function isFileWriteTool(name: string): boolean {
  return fileWriteTools.has(name);
}

export function isFileEditTool(name: string): boolean {
  return fileEditTools.has(name);
}

export function isBookkeepingTool(name: string): boolean {
  return bookkeepingTools.has(name);
}

export function isReadTool(name: string): boolean {
  return readTools.has(name);
}

export function isExecutionTool(name: string): boolean {
  return executionTools.has(name);
}

/**
 * `--permission-mode` values: `claude --help` lists acceptEdits, auto, bypassPermissions, manual,
 * dontAsk and plan; `default` is what the init line reports when none was given.
 */
export const PERMISSION_MODES = [
  "default",
  "acceptEdits",
  "auto",
  "bypassPermissions",
  "dontAsk",
  "manual",
  "plan",
] as const;
export const PermissionModeSchema = z.enum(PERMISSION_MODES);
export type PermissionMode = z.infer<typeof PermissionModeSchema>;

/**
 * The `subtype` of a stream-json `result` line. `success` does not mean the run succeeded: an API
 * error was observed as `subtype: "success"` with `is_error: true` (and `api_error_status`).
 */
export const RESULT_SUBTYPES = [
  "success",
  "error_max_turns",
  "error_during_execution",
  "error_max_budget_usd",
  "error_max_structured_output_retries",
] as const;
export type ResultSubtype = (typeof RESULT_SUBTYPES)[number];
