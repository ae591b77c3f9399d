import type { ToolCallView } from "@evals/core";
import { isReadOnlyCommand } from "./shell.js";

/** Claude Code tools that change something: files, processes, other agents. */
export const EXECUTION_TOOLS = [
  "Bash",
  "Write",
  "Edit",
  "MultiEdit",
  "NotebookEdit",
  "Agent",
  "Task",
] as const;

/** Claude Code tools that only look. */
export const READ_TOOLS = ["Read", "Glob", "Grep", "LS", "WebFetch", "WebSearch"] as const;

/** Tools that write a file. */
export const FILE_WRITE_TOOLS = ["Write", "Edit", "MultiEdit", "NotebookEdit"] as const;

/** Tools that start a subagent (Claude Code sends `Agent`; older versions and the init line say `Task`). */
export const DELEGATION_TOOLS = ["Agent", "Task"] as const;

/** Tools through which the agent asks the user something. */
export const ASK_TOOLS = ["AskUserQuestion"] as const;

const executionTools = new Set<string>(EXECUTION_TOOLS);
const readTools = new Set<string>(READ_TOOLS);
const fileWriteTools = new Set<string>(FILE_WRITE_TOOLS);
const delegationTools = new Set<string>(DELEGATION_TOOLS);

export function isFileWriteTool(name: string): boolean {
  return fileWriteTools.has(name);
}

export function isDelegationTool(name: string): boolean {
  return delegationTools.has(name);
}

/**
 * What a call does: "read" (Read, Glob, Grep, LS, WebFetch, WebSearch, and Bash commands that only
 * look, such as `ls` or `git status`), "execute" (every other Bash command, file writes, delegation)
 * or "other" (TodoWrite, Skill, MCP tools, ...).
 */
export type CallKind = "read" | "execute" | "other";

export function callKind(call: Pick<ToolCallView, "name" | "input">): CallKind {
  if (call.name === "Bash") return isReadOnlyCommand(bashCommand(call) ?? "") ? "read" : "execute";
  if (readTools.has(call.name)) return "read";
  if (executionTools.has(call.name)) return "execute";
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
  const input = call.input;
  for (const key of ["file_path", "notebook_path", "path"]) {
    const value = input[key];
    if (typeof value === "string" && value !== "") return value;
  }
  return undefined;
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
