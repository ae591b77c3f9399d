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
 * Registered by default: the events the readers and evaluators use (measured: each registered
 * event is one more process per firing, and the CLI's own cost of running a hook is most of what
 * capture costs). MessageDisplay carries the assistant's text (it becomes `assistant_text` in the
 * Run); Stop tells that the main agent went on after a permission request.
 */
export const DEFAULT_HOOK_EVENTS = [
  "UserPromptSubmit",
  ...TOOL_HOOK_EVENTS,
  "SubagentStart",
  "SubagentStop",
  "MessageDisplay",
  // CLAUDE.md and other instruction files the CLI loads itself (the agent need not Read them).
  "InstructionsLoaded",
  "Stop",
  // The only hook that tells a call denied without a prompt (permission mode dontAsk, another
  // PreToolUse hook's deny): its answer says so. Never counted as tool calls (it repeats the batch).
  "PostToolBatch",
] as const;

/**
 * What runAgent captures with hooks beside Claude Code's stream-json output: only what neither the
 * stream nor the session's transcript carries. Measured (tools/bench hooks): each event the CLI runs
 * a hook for costs it a request and ~5 ms of CPU, and a run's tool calls, results, texts and final
 * answer are all in the stream already; its prompts (a background subagent's `<task-notification>`
 * too) and the instruction files the CLI loaded itself (CLAUDE.md, its @-imports, nested ones) are
 * in the transcript, which runAgent reads after the run. Kept: permission requests (the stream
 * shows denials only), subagents' real ids, types and last messages, and the delegation calls
 * (Agent/Task, see STREAM_GAP_TOOL_MATCHER), which tell which call started which subagent. A run
 * that neither delegates nor asks fires none.
 */
export const STREAM_GAP_HOOK_EVENTS = [...TOOL_HOOK_EVENTS, "SubagentStart", "SubagentStop"] as const;

/**
 * The events whose facts runAgent reads from the session's transcript after the run instead of
 * registering their hooks (the prompts, a background subagent's `<task-notification>` too; the
 * instruction files the CLI loaded itself), turned into the same hook inputs.
 */
export const TRANSCRIPT_HOOK_EVENTS = ["UserPromptSubmit", "InstructionsLoaded"] as const;

/**
 * The tool matchers of STREAM_GAP_HOOK_EVENTS: the tool events of the delegation tools only (Claude
 * Code reads `A|B` as a list of tool names); PermissionRequest fires for every tool.
 */
export const STREAM_GAP_TOOL_MATCHER: Readonly<Record<string, string>> = {
  PreToolUse: "Agent|Task",
  PostToolUse: "Agent|Task",
  PostToolUseFailure: "Agent|Task",
};

/** Captured on request only (`events: CAPTURABLE_HOOK_EVENTS`, or `--events`): no reader needs them. */
export const OPTIONAL_HOOK_EVENTS = ["SessionStart", "Notification", "SessionEnd"] as const;

/** Every event the hook knows how to capture. */
export const CAPTURABLE_HOOK_EVENTS = [...DEFAULT_HOOK_EVENTS, ...OPTIONAL_HOOK_EVENTS] as const;

export function isToolHookEvent(name: string): boolean {
  return (TOOL_HOOK_EVENTS as readonly string[]).includes(name);
}
