import { PendingMap } from "../pending-map.js";
import { MAIN_AGENT, type Run, type RunEventInput } from "../run.js";
import { RunBuilder, type RunSink, UNNUMBERED } from "../run-builder.js";
import { isDelegationTool } from "./vocabulary.js";

/**
 * Translates Claude Code's `--output-format stream-json --verbose` lines into a Run.
 * Subagent lines carry `agent_id` and `parent_tool_use_id`; `system/task_started` and
 * `system/task_notification` mark a subagent's start and end.
 */
export interface StreamJsonOptions {
  /** The prompt(s) given on the command line: -p prompts are not echoed in the stream. */
  prompts?: string[];
  runId?: string;
  /**
   * Keep at most this many characters of each tool output text: its first and last halves, the middle
   * left out (grading keeps what its rules read: failures show at an output's start or end). A note
   * says how many were shortened. Default: every output whole.
   */
  maxOutputChars?: number;
}

type Json = Record<string, unknown>;

export function runFromStreamJson(lines: Iterable<unknown>, options: StreamJsonOptions = {}): Run {
  const builder = new RunBuilder(["stream"]);
  streamJsonInto(lines, builder, options);
  return builder.build();
}

/**
 * Translates stream-json lines into `builder`, event by event, as they are read (runFromStreamJson
 * collects them into a Run; a grader can consume them without keeping the run).
 */
export function streamJsonInto(
  lines: Iterable<unknown>,
  builder: RunSink,
  options: StreamJsonOptions = {},
): void {
  const translator = streamJsonTranslator(builder, options);
  for (const raw of lines) translator.line(raw);
  translator.end();
}

/** Translates stream-json into `builder` a line at a time (streamJsonInto, for a reader that loops itself). */
export interface StreamJsonTranslator {
  /** Translates one parsed line. */
  line(raw: unknown): void;
  /** After the last line: the notes about the whole run. */
  end(): void;
}

/** A translator of stream-json lines into `builder` (see streamJsonInto); the prompts are pushed at once. */
export function streamJsonTranslator(
  builder: RunSink,
  options: StreamJsonOptions = {},
): StreamJsonTranslator {
  if (options.runId) builder.meta.id = options.runId;
  for (const prompt of options.prompts ?? [])
    builder.push({ type: "user_message", agent: MAIN_AGENT, text: prompt });
  /** tool_use_id -> the call (its agent places subagents under the right parent). */
  const callOf = new PendingMap<string, { agent: string; id: string; name: string }>();
  /** Agent/Task tool_use_id -> the subagent it started. */
  const agentByParentCall = new Map<string, string>();
  const stopped = new Set<string>();
  let shortened = 0;
  const max = options.maxOutputChars;
  const cut = (text: string, max: number) => {
    if (text.length <= max) return text;
    shortened++;
    const half = Math.floor(max / 2);
    const kept = `${text.slice(0, half)}\n[... ${text.length - 2 * half} characters left out ...]\n${text.slice(-half)}`;
    // A copy: slices of a string keep the whole string alive in V8.
    return Buffer.from(kept, "utf8").toString("utf8");
  };
  const shorten = (content: unknown): unknown => {
    if (max === undefined) return content;
    if (typeof content === "string") return cut(content, max);
    if (!Array.isArray(content)) return content;
    return content.map((block) =>
      block && typeof block === "object" && typeof (block as Json).text === "string"
        ? { ...(block as Json), text: cut((block as Json).text as string, max) }
        : block,
    );
  };

  const agentOf = (line: Json): string => {
    if (typeof line.agent_id === "string") return line.agent_id;
    const parent = line.parent_tool_use_id;
    if (typeof parent === "string") return agentByParentCall.get(parent) ?? `task:${parent}`;
    return MAIN_AGENT;
  };

  const startSubagent = (agentId: string, parentCall: string | undefined, type?: string, prompt?: string) => {
    if (builder.hasAgent(agentId)) return;
    const parentAgent = parentCall ? (callOf.get(parentCall)?.agent ?? MAIN_AGENT) : MAIN_AGENT;
    if (parentCall) agentByParentCall.set(parentCall, agentId);
    builder.agent({
      id: agentId,
      type: type ?? "subagent",
      parent: parentAgent,
      ...(parentCall ? { parent_tool_use_id: parentCall } : {}),
    });
    builder.push({
      type: "subagent_start",
      agent: parentAgent,
      agent_id: agentId,
      ...(type ? { agent_type: type } : {}),
      ...(parentCall ? { parent_tool_use_id: parentCall } : {}),
      ...(prompt ? { prompt } : {}),
    });
  };

  const translate = (raw: unknown): void => {
    if (!raw || typeof raw !== "object") return;
    const line = raw as Json;
    switch (line.type) {
      case "system": {
        if (line.subtype === "init") {
          builder.meta.session_id = str(line.session_id);
          builder.meta.cwd = str(line.cwd);
          builder.meta.model = str(line.model);
          builder.meta.claude_version = str(line.claude_code_version);
          if (Array.isArray(line.tools)) {
            builder.meta.tools = line.tools.filter((tool): tool is string => typeof tool === "string");
          }
          if (Array.isArray(line.skills)) {
            builder.meta.skills = line.skills.filter((skill): skill is string => typeof skill === "string");
          }
        } else if (line.subtype === "task_started" && typeof line.task_id === "string") {
          startSubagent(line.task_id, str(line.tool_use_id), str(line.subagent_type), str(line.prompt));
        } else if (line.subtype === "task_notification" && typeof line.task_id === "string") {
          if (!stopped.has(line.task_id) && builder.hasAgent(line.task_id)) {
            stopped.add(line.task_id);
            builder.push({
              type: "subagent_stop",
              agent: line.task_id,
              agent_id: line.task_id,
              ...(typeof line.summary === "string" ? { last_message: line.summary } : {}),
            });
          }
        } else if (line.subtype === "permission_denied" && typeof line.tool_name === "string") {
          builder.push({
            type: "permission_denied",
            agent: agentOf(line),
            tool_name: line.tool_name,
            ...(typeof line.tool_use_id === "string" ? { id: line.tool_use_id } : {}),
            ...(typeof line.message === "string" ? { message: line.message } : {}),
          });
        }
        break;
      }
      case "assistant": {
        const agent = agentOf(line);
        if (agent !== MAIN_AGENT && typeof line.agent_id === "string") {
          startSubagent(agent, str(line.parent_tool_use_id));
        }
        const message = (line.message ?? {}) as Json;
        for (const block of asArray(message.content)) {
          if (block.type === "text" && typeof block.text === "string") {
            builder.push({
              type: "assistant_text",
              agent,
              text: block.text,
              ...(typeof message.id === "string" ? { message_id: message.id } : {}),
              ...timestampOf(line),
            });
          } else if (block.type === "tool_use" && typeof block.id === "string") {
            // Calls and results (most of a long run) are made in one literal with every field, the
            // index slot included (see UNNUMBERED), absent ones undefined (JSON leaves them out).
            const call = {
              index: UNNUMBERED,
              type: "tool_call",
              agent,
              id: block.id,
              name: String(block.name),
              input: (block.input ?? {}) as Record<string, unknown>,
              message_id: str(message.id),
              timestamp: str(line.timestamp),
            } as const;
            callOf.set(block.id, call);
            builder.push(call);
          }
        }
        break;
      }
      case "user": {
        const agent = agentOf(line);
        const message = (line.message ?? {}) as Json;
        const content = message.content;
        if (typeof content === "string") {
          pushUserMessage(builder, userMessage(content, agent), timestampOf(line));
          break;
        }
        for (const block of asArray(content)) {
          if (block.type === "tool_result" && typeof block.tool_use_id === "string") {
            const isError = block.is_error === true;
            const output = shorten(block.content);
            const call = callOf.get(block.tool_use_id);
            // Answered: only a delegation's call is looked up again (its subagent's lines name it), so
            // a long run's answered calls are not held while it is read.
            if (call && !isDelegationTool(call.name)) callOf.delete(block.tool_use_id);
            builder.push({
              index: UNNUMBERED,
              type: "tool_result",
              agent: call?.agent ?? agent,
              // The call's own id string: one copy for both events.
              id: call?.id ?? block.tool_use_id,
              output,
              is_error: isError,
              error: isError ? textOf(output) : undefined,
              timestamp: str(line.timestamp),
            } as RunEventInput);
          } else if (block.type === "text" && typeof block.text === "string") {
            pushUserMessage(builder, userMessage(block.text, agent), timestampOf(line));
          }
        }
        break;
      }
      case "result": {
        builder.push({
          type: "final_result",
          agent: MAIN_AGENT,
          subtype: String(line.subtype ?? "unknown"),
          is_error: line.is_error === true,
          ...pick(line, "number", ["num_turns", "total_cost_usd", "duration_ms"]),
          ...pick(line, "string", ["session_id", "result"]),
          ...(line.stop_reason === null || typeof line.stop_reason === "string"
            ? { stop_reason: line.stop_reason }
            : {}),
          ...(typeof line.terminal_reason === "string" ? { terminal_reason: line.terminal_reason } : {}),
          ...(Number.isInteger(line.api_error_status)
            ? { api_error_status: line.api_error_status as number }
            : {}),
          ...(typeof line.api_error_type === "string" ? { api_error_type: line.api_error_type } : {}),
          ...(Array.isArray(line.errors) ? { errors: line.errors.map(String) } : {}),
          ...(Array.isArray(line.permission_denials)
            ? { permission_denials: line.permission_denials.filter(isDenial) as never }
            : {}),
          ...(line.usage && typeof line.usage === "object" ? { usage: line.usage as never } : {}),
        });
        break;
      }
    }
  };
  const end = (): void => {
    if (shortened > 0)
      builder.note({
        kind: "other",
        message: `${shortened} tool output(s) longer than ${max} characters were kept as their first and last ${Math.floor((max ?? 0) / 2)}`,
      });
  };
  return { line: translate, end };
}

/**
 * A user message as the Run keeps it: a `<task-notification>` (Claude Code telling the parent that a
 * background subagent finished) is a notification attributed to that subagent, not a user prompt.
 */
export function userMessage(text: string, agent: string): RunEventInput & { type: "user_message" } {
  const taskId = taskNotificationId(text);
  if (taskId === undefined) return { type: "user_message", agent, text };
  return { type: "user_message", agent: taskId, text, notification: true };
}

/** Pushes a user message, registering the subagent a notification is about when it is new. */
export function pushUserMessage(
  builder: RunSink,
  message: RunEventInput & { type: "user_message" },
  timestamp: { timestamp?: string },
): void {
  if (message.notification && !builder.hasAgent(message.agent)) {
    builder.agent({ id: message.agent, type: "subagent", parent: MAIN_AGENT });
  }
  builder.push({ ...message, ...timestamp });
}

/** The task id of a `<task-notification>` message (the subagent's agent id), else undefined. */
export function taskNotificationId(text: string): string | undefined {
  if (!text.trimStart().startsWith("<task-notification>")) return undefined;
  return /<task-id>([^<]+)<\/task-id>/.exec(text)?.[1]?.trim() ?? "task";
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** The objects of an array (the array itself when they all are: no copy for each line). */
function asArray(value: unknown): Json[] {
  if (!Array.isArray(value)) return [];
  return (value.every(isObject) ? value : value.filter(isObject)) as Json[];
}

function isObject(item: unknown): boolean {
  return typeof item === "object" && item !== null;
}

/** A line's timestamp as the fields of an event (made only for the events that spread it). */
function timestampOf(line: Json): { timestamp?: string } {
  return typeof line.timestamp === "string" ? { timestamp: line.timestamp } : {};
}

/** The text of a tool_result's content (a string or a list of blocks). */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((block) => (block && typeof block === "object" && "text" in block ? String(block.text) : ""))
      .join("");
  }
  return content === undefined ? "" : JSON.stringify(content);
}

/** A result line's permission denial as a Run keeps it: an object naming the tool. */
function isDenial(value: unknown): boolean {
  return typeof value === "object" && value !== null && typeof (value as Json).tool_name === "string";
}

/**
 * The fields of `line` that hold a `type` value: one of another type (null, a number as a string) is
 * left out as if absent, so the rules that read it get the type a Run has.
 */
function pick(line: Json, type: "number" | "string", keys: string[]): Json {
  const out: Json = {};
  for (const key of keys) if (typeof line[key] === type) out[key] = line[key];
  return out;
}
