/**
 * The Claude Code hook events the capture hook is registered for. Plain constants (no zod): the
 * hook executable imports this file.
 */

/** Events whose payload names a tool; they take a tool-name matcher ("*" = every tool). */
export const TOOL_HOOK_EVENTS = [
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "PermissionRequest",
] as const;

/**
 * Registered by default: every event the framework reads. MessageDisplay carries the assistant's
 * text (it becomes `assistant_text` in the Run).
 */
export const DEFAULT_HOOK_EVENTS = [
  "SessionStart",
  "UserPromptSubmit",
  ...TOOL_HOOK_EVENTS,
  "SubagentStart",
  "SubagentStop",
  "Notification",
  "MessageDisplay",
  // CLAUDE.md and other instruction files the CLI loads itself (the agent need not Read them).
  "InstructionsLoaded",
  "Stop",
  "SessionEnd",
] as const;

/**
 * Every event the hook knows how to capture. PostToolBatch repeats the calls of a batch that
 * PreToolUse/PostToolUse already captured; it is off by default (one more process per batch) and,
 * when on, never counted as tool calls by the readers.
 */
export const CAPTURABLE_HOOK_EVENTS = [...DEFAULT_HOOK_EVENTS, "PostToolBatch"] as const;

export type HookEventName = (typeof CAPTURABLE_HOOK_EVENTS)[number];

export function isToolHookEvent(name: string): boolean {
  return (TOOL_HOOK_EVENTS as readonly string[]).includes(name);
}
