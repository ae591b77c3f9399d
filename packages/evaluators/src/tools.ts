import { isExecutionTool, isReadTool, type ToolCallView } from "@evals/core";
import { isReadOnlyCommand } from "./shell.js";

// The tool lists are @evals/core's (its Claude Code vocabulary); evaluators re-exports them.
export {
  ASK_TOOLS,
  DELEGATION_TOOLS,
  EXECUTION_TOOLS,
  FILE_WRITE_TOOLS,
  isDelegationTool,
  isFileWriteTool,
  READ_TOOLS,
} from "@evals/core";

/**
 * What a call does: "read" (Read, Glob, Grep, LS, WebFetch, WebSearch, and Bash commands that only
 * look, such as `ls` or `git status`), "execute" (every other Bash command, file writes) or "other"
 * (delegation to a subagent, Skill, TodoWrite, MCP tools, ...: they change nothing themselves).
 */
export type CallKind = "read" | "execute" | "other";

export function callKind(call: Pick<ToolCallView, "name" | "input">): CallKind {
  if (call.name === "Bash") return isReadOnlyCommand(bashCommand(call) ?? "") ? "read" : "execute";
  if (isReadTool(call.name)) return "read";
  if (isExecutionTool(call.name)) return "execute";
  return "other";
}

/** The command of a Bash call. */
export function bashCommand(call: Pick<ToolCallView, "name" | "input">): string | undefined {
  if (call.name !== "Bash") return undefined;
  const command = call.input.command;
  return typeof command === "string" ? command : undefined;
}

/** The file a Read/Write/Edit/MultiEdit/NotebookEdit call is about. */
export function filePathOf(call: Pick<ToolCallView, "input">): string | undefined {
  // Each field named: a property read by name costs less than one by a key that varies.
  const input = call.input;
  const file = input.file_path;
  if (typeof file === "string" && file !== "") return file;
  const notebook = input.notebook_path;
  if (typeof notebook === "string" && notebook !== "") return notebook;
  const path = input.path;
  return typeof path === "string" && path !== "" ? path : undefined;
}

/** A one-line summary of a call for messages: `Bash "npm test"`, `Edit src/a.ts`. */
export function describeCall(call: Pick<ToolCallView, "name" | "input">): string {
  const command = bashCommand(call);
  if (command !== undefined) return `Bash ${JSON.stringify(truncate(command, 80))}`;
  const path = filePathOf(call);
  if (path !== undefined) return `${call.name} ${path}`;
  for (const key of ["pattern", "query", "url", "description", "subagent_type"]) {
    const value = call.input[key];
    if (typeof value === "string") return `${call.name} ${JSON.stringify(truncate(value, 60))}`;
  }
  return call.name;
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * Whether two calls are the same call made again: same tool and input, a Bash call's `description`
 * aside (it only says why).
 */
export function sameCall(
  a: Pick<ToolCallView, "name" | "input">,
  b: Pick<ToolCallView, "name" | "input">,
): boolean {
  if (a.name !== b.name) return false;
  const strip = (call: Pick<ToolCallView, "name" | "input">) => {
    if (call.name !== "Bash") return call.input;
    const { description: _description, ...rest } = call.input;
    return rest;
  };
  return JSON.stringify(strip(a)) === JSON.stringify(strip(b));
}
