import { type PermissionMode, sameTool, type ToolCallView } from "@evals/core";
import { pathMatches } from "./paths.js";
import { globToRegExp } from "./patterns.js";
import { bashCommand, filePathOf, isFileWriteTool } from "./tools.js";

// Claude Code's `--permission-mode` values are @evals/core's (PERMISSION_MODES); re-exported here.
export { type PermissionMode, PermissionModeSchema } from "@evals/core";

/**
 * Whether the user approved a call in advance through the run's permission settings: every call in
 * bypassPermissions mode, file edits in acceptEdits mode, and calls matching an `--allowedTools` rule
 * (`Write`, `Bash(npm test:*)`, `Bash(git log *)`, `Edit(src/**)`). Returns the reason, or undefined.
 */
export function preApprovedBySettings(
  call: Pick<ToolCallView, "name" | "input">,
  settings: { permissionMode?: PermissionMode | undefined; allowedTools?: readonly string[] | undefined },
  cwd?: string,
): string | undefined {
  if (settings.permissionMode === "bypassPermissions") return "permission mode bypassPermissions";
  if (settings.permissionMode === "acceptEdits" && isFileWriteTool(call.name)) {
    return "permission mode acceptEdits";
  }
  for (const rule of settings.allowedTools ?? []) {
    if (allowedToolRuleMatches(rule, call, cwd)) return `allowed tool rule ${rule}`;
  }
  return undefined;
}

/** One `--allowedTools` rule against a call. */
export function allowedToolRuleMatches(
  rule: string,
  call: Pick<ToolCallView, "name" | "input">,
  cwd?: string,
): boolean {
  const match = /^([^()]+?)\s*(?:\((.*)\))?$/s.exec(rule.trim());
  if (!match) return false;
  const [, tool, spec] = match;
  if (tool === undefined || !sameTool(tool, call.name)) return false;
  if (spec === undefined || spec === "" || spec === "*") return true;
  const command = bashCommand(call);
  if (command !== undefined) {
    // `npm test:*` is a prefix rule; otherwise `*` is a wildcard and the rest must match exactly.
    if (spec.endsWith(":*")) return command.trim().startsWith(spec.slice(0, -2).trim());
    return globToRegExp(spec).test(command.trim());
  }
  const path = filePathOf(call);
  return path !== undefined && pathMatches(path, spec, cwd);
}
