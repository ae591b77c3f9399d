import { z } from "zod";
import { CapturedEventSchema, ToolCallEntrySchema } from "./captured-event.js";
import { EvaluatorResultSchema } from "./evaluator-result.js";
import {
  GenericHookInputSchema,
  MessageDisplayInputSchema,
  NotificationInputSchema,
  PermissionRequestInputSchema,
  PostToolBatchInputSchema,
  PostToolUseFailureInputSchema,
  PostToolUseInputSchema,
  PreToolUseInputSchema,
  SessionEndInputSchema,
  SessionStartInputSchema,
  StopInputSchema,
  SubagentStartInputSchema,
  SubagentStopInputSchema,
  UserPromptSubmitInputSchema,
} from "./hook-input.js";
import { formatJsonSchema } from "./json-schema-of.js";
import { RunSchema } from "./run.js";
import { RunFolderManifestSchema } from "./run-folder.js";

/** The hook input as a plain union: what JSON Schema can say (parsing dispatches by event name). */
const HookInputUnionSchema = z.union([
  SessionStartInputSchema,
  UserPromptSubmitInputSchema,
  PreToolUseInputSchema,
  PostToolUseInputSchema,
  PostToolUseFailureInputSchema,
  PostToolBatchInputSchema,
  PermissionRequestInputSchema,
  SubagentStartInputSchema,
  SubagentStopInputSchema,
  StopInputSchema,
  SessionEndInputSchema,
  NotificationInputSchema,
  MessageDisplayInputSchema,
  GenericHookInputSchema,
]);

/** The file formats of @evals/core, by name, as zod schemas. */
export const fileFormats = {
  "captured-event": CapturedEventSchema.extend({ event: HookInputUnionSchema }),
  "tool-call-entry": ToolCallEntrySchema,
  "hook-input": HookInputUnionSchema,
  run: RunSchema,
  "evaluator-result": EvaluatorResultSchema,
  "run-folder": RunFolderManifestSchema,
} as const;
export type FileFormatName = keyof typeof fileFormats;

/** A JSON Schema (draft 2020-12) for one of the file formats, generated from its zod schema. */
export function jsonSchemaFor(name: FileFormatName): Record<string, unknown> {
  return formatJsonSchema("core", name, fileFormats[name]);
}
