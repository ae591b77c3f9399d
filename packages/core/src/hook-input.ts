import { z } from "zod";

/**
 * Claude Code hook inputs: the JSON a hook command reads on stdin, as observed on 2.1.330.
 * Every schema is loose: fields a newer CLI adds are kept, never dropped. An event name we do not
 * know parses as a generic hook input, so a new CLI version never breaks capture.
 */

const commonFields = {
  session_id: z.string(),
  transcript_path: z.string().optional(),
  cwd: z.string(),
  prompt_id: z.string().optional(),
  permission_mode: z.string().optional(),
  effort: z.unknown().optional(),
  /** Set on events that fire inside a subagent. */
  agent_id: z.string().optional(),
  agent_type: z.string().optional(),
};

const toolFields = {
  tool_name: z.string(),
  tool_input: z.record(z.string(), z.unknown()),
  tool_use_id: z.string().optional(),
};

function hookEvent<Name extends string, Shape extends z.ZodRawShape>(name: Name, shape: Shape) {
  return z.looseObject({ ...commonFields, hook_event_name: z.literal(name), ...shape });
}

export const SessionStartInputSchema = hookEvent("SessionStart", {
  source: z.string().optional(),
  model: z.string().optional(),
});
export const UserPromptSubmitInputSchema = hookEvent("UserPromptSubmit", { prompt: z.string() });
export const PreToolUseInputSchema = hookEvent("PreToolUse", toolFields);
export const PostToolUseInputSchema = hookEvent("PostToolUse", {
  ...toolFields,
  tool_response: z.unknown().optional(),
  duration_ms: z.number().optional(),
});
export const PostToolUseFailureInputSchema = hookEvent("PostToolUseFailure", {
  ...toolFields,
  error: z.string().optional(),
  is_interrupt: z.boolean().optional(),
  duration_ms: z.number().optional(),
});
export const PostToolBatchInputSchema = hookEvent("PostToolBatch", {
  tool_calls: z.array(
    z.looseObject({
      tool_name: z.string(),
      tool_input: z.record(z.string(), z.unknown()).optional(),
      tool_use_id: z.string().optional(),
      tool_response: z.unknown().optional(),
    }),
  ),
});
export const PermissionRequestInputSchema = hookEvent("PermissionRequest", {
  tool_name: z.string(),
  tool_input: z.record(z.string(), z.unknown()),
  tool_use_id: z.string().optional(),
  permission_suggestions: z.unknown().optional(),
});
export const SubagentStartInputSchema = hookEvent("SubagentStart", {
  agent_id: z.string(),
  agent_type: z.string().optional(),
});
export const SubagentStopInputSchema = hookEvent("SubagentStop", {
  agent_id: z.string(),
  agent_type: z.string().optional(),
  agent_transcript_path: z.string().optional(),
  last_assistant_message: z.string().optional(),
  stop_hook_active: z.boolean().optional(),
});
export const StopInputSchema = hookEvent("Stop", {
  stop_hook_active: z.boolean().optional(),
  last_assistant_message: z.string().optional(),
});
export const SessionEndInputSchema = hookEvent("SessionEnd", { reason: z.string().optional() });
export const NotificationInputSchema = hookEvent("Notification", {
  message: z.string().optional(),
  title: z.string().optional(),
  notification_type: z.string().optional(),
});
export const MessageDisplayInputSchema = hookEvent("MessageDisplay", {
  turn_id: z.string().optional(),
  message_id: z.string().optional(),
  index: z.number().optional(),
  final: z.boolean().optional(),
  delta: z.string().optional(),
});

export const KNOWN_HOOK_EVENTS = [
  "SessionStart",
  "UserPromptSubmit",
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "PostToolBatch",
  "PermissionRequest",
  "SubagentStart",
  "SubagentStop",
  "Stop",
  "SessionEnd",
  "Notification",
  "MessageDisplay",
] as const;
export type KnownHookEventName = (typeof KNOWN_HOOK_EVENTS)[number];

/** An event name this version of the model does not know yet; kept whole. */
export const GenericHookInputSchema = z.looseObject({
  ...commonFields,
  session_id: z.string().optional(),
  cwd: z.string().optional(),
  hook_event_name: z
    .string()
    .min(1)
    .refine((name) => !(KNOWN_HOOK_EVENTS as readonly string[]).includes(name), {
      message: "a known hook event name must match that event's schema",
    }),
});

const schemasByName = {
  SessionStart: SessionStartInputSchema,
  UserPromptSubmit: UserPromptSubmitInputSchema,
  PreToolUse: PreToolUseInputSchema,
  PostToolUse: PostToolUseInputSchema,
  PostToolUseFailure: PostToolUseFailureInputSchema,
  PostToolBatch: PostToolBatchInputSchema,
  PermissionRequest: PermissionRequestInputSchema,
  SubagentStart: SubagentStartInputSchema,
  SubagentStop: SubagentStopInputSchema,
  Stop: StopInputSchema,
  SessionEnd: SessionEndInputSchema,
  Notification: NotificationInputSchema,
  MessageDisplay: MessageDisplayInputSchema,
} satisfies Record<KnownHookEventName, z.ZodType>;

/**
 * Any hook input. Dispatches on `hook_event_name` so that a malformed known event reports the
 * field that is wrong (instead of a vague union error), and an unknown one is kept as generic.
 */
export const HookInputSchema = z.custom<HookInput>().superRefine((value, ctx) => {
  const result = hookInputSchemaFor(value).safeParse(value);
  if (!result.success) for (const issue of result.error.issues) ctx.addIssue({ ...issue } as never);
});

function hookInputSchemaFor(value: unknown): z.ZodType {
  const name = (value as { hook_event_name?: unknown } | null)?.hook_event_name;
  if (typeof name === "string" && Object.hasOwn(schemasByName, name))
    return schemasByName[name as KnownHookEventName];
  return GenericHookInputSchema;
}

/** Validates a hook input and returns it with every field kept. Throws a ZodError on bad input. */
export function parseHookInput(value: unknown): HookInput {
  return hookInputSchemaFor(value).parse(value) as HookInput;
}

export type SessionStartInput = z.infer<typeof SessionStartInputSchema>;
export type UserPromptSubmitInput = z.infer<typeof UserPromptSubmitInputSchema>;
export type PreToolUseInput = z.infer<typeof PreToolUseInputSchema>;
export type PostToolUseInput = z.infer<typeof PostToolUseInputSchema>;
export type PostToolUseFailureInput = z.infer<typeof PostToolUseFailureInputSchema>;
export type PostToolBatchInput = z.infer<typeof PostToolBatchInputSchema>;
export type PermissionRequestInput = z.infer<typeof PermissionRequestInputSchema>;
export type SubagentStartInput = z.infer<typeof SubagentStartInputSchema>;
export type SubagentStopInput = z.infer<typeof SubagentStopInputSchema>;
export type StopInput = z.infer<typeof StopInputSchema>;
export type SessionEndInput = z.infer<typeof SessionEndInputSchema>;
export type NotificationInput = z.infer<typeof NotificationInputSchema>;
export type MessageDisplayInput = z.infer<typeof MessageDisplayInputSchema>;
export type GenericHookInput = z.infer<typeof GenericHookInputSchema>;

export type KnownHookInput =
  | SessionStartInput
  | UserPromptSubmitInput
  | PreToolUseInput
  | PostToolUseInput
  | PostToolUseFailureInput
  | PostToolBatchInput
  | PermissionRequestInput
  | SubagentStartInput
  | SubagentStopInput
  | StopInput
  | SessionEndInput
  | NotificationInput
  | MessageDisplayInput;
export type HookInput = KnownHookInput | GenericHookInput;
