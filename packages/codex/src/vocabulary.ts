import { isAbsolute, resolve } from "node:path";
import type { PatchOperation } from "./patch.js";

/**
 * Codex's tools in the shared (Claude Code) vocabulary, so the same cases and rules judge a Codex
 * run. Observed with Codex CLI 0.169.0 (shared/reference/codex-cli.md). apply_patch is mapped per
 * file it touches (see patchToolCall); tools without a counterpart keep their name.
 */
export const CODEX_TOOL_NAMES: Readonly<Record<string, string>> = Object.freeze({
  exec_command: "Bash",
  write_stdin: "BashOutput",
  request_user_input: "AskUserQuestion",
  view_image: "Read",
  web_search: "WebSearch",
});

/** The shared name of a Codex tool (`exec_command` -> `Bash`); unknown names are kept. */
export function codexToolName(name: string): string {
  return Object.hasOwn(CODEX_TOOL_NAMES, name) ? (CODEX_TOOL_NAMES[name] as string) : name;
}

/** A Codex function call's arguments in the shared shape: exec_command's `cmd` is Bash's `command`. */
export function codexToolInput(name: string, args: Record<string, unknown>): Record<string, unknown> {
  if (name === "exec_command") {
    const { cmd, ...rest } = args;
    return { command: cmd, ...rest };
  }
  if (name === "view_image") {
    const { path, ...rest } = args;
    return { file_path: path, ...rest };
  }
  return args;
}

/**
 * One file operation of an apply_patch in the shared shape: an added file is a Write
 * `{file_path, content}`, an updated one an Edit `{file_path, old_string, new_string}` (a moved file
 * adds `move_to`). A deleted file has no shared tool: it stays `apply_patch {file_path, delete: true}`.
 */
export function patchToolCall(
  operation: PatchOperation,
  cwd: string | undefined,
): { name: string; input: Record<string, unknown> } {
  const file_path = cwd && !isAbsolute(operation.path) ? resolve(cwd, operation.path) : operation.path;
  if (operation.kind === "add") return { name: "Write", input: { file_path, content: operation.content } };
  if (operation.kind === "delete") return { name: "apply_patch", input: { file_path, delete: true } };
  return {
    name: "Edit",
    input: {
      file_path,
      old_string: operation.old_string,
      new_string: operation.new_string,
      ...(operation.move_to ? { move_to: operation.move_to } : {}),
    },
  };
}

/** The command inside Codex's `/bin/bash -lc '<cmd>'` wrapper (the stream shows the wrapped form). */
export function unwrapShellCommand(command: string): string {
  const match = /^\S*\/(?:ba|z)?sh -lc ([\s\S]+)$/.exec(command);
  if (!match) return command;
  const quoted = match[1]!;
  if (!quoted.startsWith("'")) return quoted;
  // POSIX single quotes: '...' with '\'' (or '"'"') for a quote inside.
  let out = "";
  let index = 0;
  while (index < quoted.length) {
    const char = quoted[index]!;
    if (char === "'") {
      const end = quoted.indexOf("'", index + 1);
      if (end < 0) return command;
      out += quoted.slice(index + 1, end);
      index = end + 1;
    } else if (char === "\\" && index + 1 < quoted.length) {
      out += quoted[index + 1];
      index += 2;
    } else if (char === '"') {
      const end = quoted.indexOf('"', index + 1);
      if (end < 0) return command;
      out += quoted.slice(index + 1, end);
      index = end + 1;
    } else {
      return command;
    }
  }
  return out;
}
