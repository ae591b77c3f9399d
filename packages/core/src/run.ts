import { z } from "zod";
import { RUN_VERSION } from "./format-version.js";

/**
 * The normalized Run: everything that happened in one agent run, in order, whatever it was built
 * from (stream-json, hook events, a transcript, a cassette). Evaluators, reports and cassettes read
 * only this.
 */

/** The agent an event belongs to: "main", or a subagent's `agent_id`. */
export const MAIN_AGENT = "main" as const;

export const RunSourceSchema = z.enum(["stream", "hooks", "transcript", "cassette", "synthetic"]);
export type RunSource = z.infer<typeof RunSourceSchema>;

const eventBase = {
  /** Position in `run.events`, starting at 0. */
  index: z.number().int().nonnegative(),
  /** "main" or the subagent's agent id. */
  agent: z.string(),
  /** ISO time when known. */
  timestamp: z.string().optional(),
  /** Which sources saw this event. Reconciled runs flag events seen in only one of them. */
  sources: z.array(RunSourceSchema).optional(),
};

export const UserMessageEventSchema = z.object({
  ...eventBase,
  type: z.literal("user_message"),
  text: z.string(),
  /**
   * True when Claude Code wrote the message, not the user: a `<task-notification>` telling the parent
   * that a background subagent finished. `agent` is then the subagent it is about.
   */
  notification: z.boolean().optional(),
});

export const AssistantTextEventSchema = z.object({
  ...eventBase,
  type: z.literal("assistant_text"),
  text: z.string(),
  /** The model message id; several blocks of one message share it. */
  message_id: z.string().optional(),
});

export const ToolCallEventSchema = z.object({
  ...eventBase,
  type: z.literal("tool_call"),
  /** The tool_use_id. Synthetic ids start with "missing:" when no source had one. */
  id: z.string(),
  /** The tool name as the source said it (`Task` or `Agent`: compare with `sameTool`). */
  name: z.string(),
  /**
   * The agent's own name for the tool when `name` was mapped to the shared vocabulary (OpenCode's
   * `bash` is `Bash`, with `original_name: "bash"`); absent when the agent used the name itself.
   */
  original_name: z.string().optional(),
  /**
   * The input as the agent sent it, when `input` was mapped to the shared shapes (OpenCode's
   * `filePath` is `file_path`); absent when `input` is the agent's own.
   */
  original_input: z.record(z.string(), z.unknown()).optional(),
  input: z.record(z.string(), z.unknown()),
  /**
   * The model message id: calls made together in one model message (parallel calls) share it. The
   * stream knows it; hooks do not.
   */
  message_id: z.string().optional(),
});

export const ToolResultEventSchema = z.object({
  ...eventBase,
  type: z.literal("tool_result"),
  /** The tool_use_id of the call this answers. */
  id: z.string(),
  output: z.unknown(),
  is_error: z.boolean(),
  /** The error text when the tool failed (PostToolUseFailure, hook block, denial). */
  error: z.string().optional(),
  duration_ms: z.number().nonnegative().optional(),
});

export const PermissionRequestEventSchema = z.object({
  ...eventBase,
  type: z.literal("permission_request"),
  /** tool_use_id when known (the hook payload lacks it; reconciliation fills it in). */
  id: z.string().optional(),
  tool_name: z.string(),
  input: z.record(z.string(), z.unknown()),
});

export const PermissionDeniedEventSchema = z.object({
  ...eventBase,
  type: z.literal("permission_denied"),
  id: z.string().optional(),
  tool_name: z.string(),
  message: z.string().optional(),
});

export const SubagentStartEventSchema = z.object({
  ...eventBase,
  type: z.literal("subagent_start"),
  /** The new subagent's id; `agent` is the agent that delegated. */
  agent_id: z.string(),
  agent_type: z.string().optional(),
  /** The Agent/Task tool call that started it. */
  parent_tool_use_id: z.string().optional(),
  prompt: z.string().optional(),
});

export const SubagentStopEventSchema = z.object({
  ...eventBase,
  type: z.literal("subagent_stop"),
  agent_id: z.string(),
  agent_type: z.string().optional(),
  last_message: z.string().optional(),
});

export const UsageSchema = z.looseObject({
  input_tokens: z.number().optional(),
  output_tokens: z.number().optional(),
  cache_creation_input_tokens: z.number().optional(),
  cache_read_input_tokens: z.number().optional(),
});

export const FinalResultEventSchema = z.object({
  ...eventBase,
  type: z.literal("final_result"),
  /** success, error_max_turns, error_during_execution, ... */
  subtype: z.string(),
  is_error: z.boolean(),
  num_turns: z.number().int().nonnegative().optional(),
  total_cost_usd: z.number().nonnegative().optional(),
  duration_ms: z.number().nonnegative().optional(),
  session_id: z.string().optional(),
  result: z.string().optional(),
  permission_denials: z
    .array(
      z.looseObject({ tool_name: z.string(), tool_use_id: z.string().optional(), tool_input: z.unknown() }),
    )
    .optional(),
  usage: UsageSchema.optional(),
  stop_reason: z.string().nullable().optional(),
  /** Why the run ended: completed, max_turns, api_error, budget_exhausted, prompt_too_long, ... */
  terminal_reason: z.string().optional(),
  /** The HTTP status of the API error that ended the run (its subtype may still say "success"). */
  api_error_status: z.number().int().optional(),
  /** The API error's type, e.g. invalid_request_error. */
  api_error_type: z.string().optional(),
  /** What the CLI said went wrong, e.g. ["Reached maximum number of turns (2)"]. */
  errors: z.array(z.string()).optional(),
});

export const RunEventSchema = z.discriminatedUnion("type", [
  UserMessageEventSchema,
  AssistantTextEventSchema,
  ToolCallEventSchema,
  ToolResultEventSchema,
  PermissionRequestEventSchema,
  PermissionDeniedEventSchema,
  SubagentStartEventSchema,
  SubagentStopEventSchema,
  FinalResultEventSchema,
]);

export const AgentInfoSchema = z.object({
  /** "main" or the subagent's agent id. */
  id: z.string(),
  /** "main" for the main agent, else the subagent type (general-purpose, Explore, ...). */
  type: z.string(),
  /** The agent that started this one (absent for main). */
  parent: z.string().optional(),
  parent_tool_use_id: z.string().optional(),
});

/** Something a builder noticed about its sources: an event seen in only one, a back-filled id. */
export const RunNoteSchema = z.object({
  kind: z.enum(["only_in_stream", "only_in_hooks", "id_backfilled", "dropped_event", "parse_error", "other"]),
  message: z.string(),
  event_index: z.number().int().nonnegative().optional(),
  tool_use_id: z.string().optional(),
});

export const RunSchema = z.object({
  version: z.literal(RUN_VERSION),
  /** The run id (TEST_RUN_ID) when the run was captured by the harness. */
  id: z.string().optional(),
  session_id: z.string().optional(),
  cwd: z.string().optional(),
  model: z.string().optional(),
  claude_version: z.string().optional(),
  /** The agent CLI that ran: "claude-code" (also when absent) or "opencode". */
  agent: z.string().optional(),
  /** That CLI's version, for agents other than Claude Code (whose version is `claude_version`). */
  agent_version: z.string().optional(),
  /** The tools the agent was offered (the stream's `system/init` line), when known. */
  tools: z.array(z.string()).optional(),
  /** The skills the agent could load (the stream's `system/init` line), when known. */
  skills: z.array(z.string()).optional(),
  /**
   * Instruction files Claude Code loaded into the context itself (CLAUDE.md and the like, from the
   * InstructionsLoaded hook): the agent did not need to Read them.
   */
  instructions: z
    .array(
      z.looseObject({
        file_path: z.string(),
        /** User, Project, Local, Managed. */
        memory_type: z.string().optional(),
        /** session_start, nested_traversal, path_glob_match, include, compact. */
        load_reason: z.string().optional(),
      }),
    )
    .optional(),
  /** What the run was built from. */
  sources: z.array(RunSourceSchema),
  agents: z.array(AgentInfoSchema),
  events: z.array(RunEventSchema),
  notes: z.array(RunNoteSchema).default([]),
});

export type UserMessageEvent = z.infer<typeof UserMessageEventSchema>;
export type AssistantTextEvent = z.infer<typeof AssistantTextEventSchema>;
export type ToolCallEvent = z.infer<typeof ToolCallEventSchema>;
export type ToolResultEvent = z.infer<typeof ToolResultEventSchema>;
export type FinalResultEvent = z.infer<typeof FinalResultEventSchema>;
export type RunEvent = z.infer<typeof RunEventSchema>;
export type AgentInfo = z.infer<typeof AgentInfoSchema>;
export type RunNote = z.infer<typeof RunNoteSchema>;
export type Run = z.infer<typeof RunSchema>;
export type Usage = z.infer<typeof UsageSchema>;

/** An event without its index: what builders push before `finishRun` numbers them. */
export type RunEventInput = RunEvent extends infer E
  ? E extends RunEvent
    ? Omit<E, "index">
    : never
  : never;
