import { readFileSync } from "node:fs";
import { type JsonlLineError, parseJsonl } from "../jsonl-reader.js";
import { type FinalResultEvent, MAIN_AGENT, type Run } from "../run.js";
import { RunBuilder } from "../run-builder.js";
import {
  isOpenCodeStreamLine,
  type OpenCodeError,
  type OpenCodePart,
  type OpenCodeStreamLine,
} from "./stream.js";
import { openCodeToolInput, openCodeToolName } from "./vocabulary.js";

/** A subagent session OpenCode ran for a `task` call (from its database after the run). */
export interface OpenCodeChildSession {
  id: string;
  parentId: string;
  /** The agent it ran as (`general`, `explore`, a custom subagent). */
  agent?: string;
  title?: string;
  /** Its assistant messages' parts, in order. */
  parts: OpenCodePart[];
}

/** How the runner stopped the run, when it did. */
export type RunnerStop =
  | { kind: "max_steps"; steps: number }
  | { kind: "timeout" }
  | { kind: "aborted" }
  /** OpenCode began retrying a failed model call (429, 5xx: it would retry for ~76 s). */
  | { kind: "api_error"; message: string; attempt?: number }
  /** A stored stream that ends before OpenCode finished (no last step that stopped): cut short. */
  | { kind: "unfinished" };

export interface BuildOpenCodeRunInput {
  /** The parsed lines of `opencode run --format json`. */
  lines: OpenCodeStreamLine[];
  /** Subagent sessions, any depth. */
  children?: OpenCodeChildSession[];
  /** The prompt(s) the run was given. */
  prompts?: string[];
  runId?: string;
  cwd?: string;
  model?: string;
  version?: string;
  /** OpenCode's stderr: its "permission requested ...; auto-rejecting" lines name the asks. */
  stderr?: string;
  /** Why the runner ended the run, if it did. */
  stop?: RunnerStop;
  exitCode?: number | null;
  durationMs?: number;
}

/** OpenCode's errors for a call that a permission stopped. */
const REJECTED = "The user rejected permission to use this specific tool call.";
const RULE_DENIED = "The user has specified a rule which prevents you from using this specific tool call.";

/**
 * Turns an OpenCode run (its JSON stream and its subagent sessions) into a @evals/core Run, in the
 * shared vocabulary: tool names and inputs mapped (`read {filePath}` -> `Read {file_path}`, the
 * original kept in `original_name` / `original_input`), each `task` call followed by its subagent's
 * events, denials as permission events, and one final_result with steps, tokens, cost and errors.
 */
export function buildOpenCodeRun(input: BuildOpenCodeRunInput): Run {
  const builder = new RunBuilder(["stream"]);
  const children = input.children ?? [];
  const timestamp = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
  const asks = askedTools(input.stderr ?? "");
  const denials: NonNullable<FinalResultEvent["permission_denials"]> = [];
  const totals = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };
  const rootSession = input.lines.find((line) => line.sessionID)?.sessionID;

  builder.meta = {
    ...(input.runId ? { id: input.runId } : {}),
    ...(rootSession ? { session_id: rootSession } : {}),
    ...(input.cwd ? { cwd: input.cwd } : {}),
    ...(input.model ? { model: input.model } : {}),
    agent: "opencode",
    ...(input.version ? { agent_version: input.version } : {}),
  };
  for (const prompt of input.prompts ?? [])
    builder.push({ type: "user_message", agent: MAIN_AGENT, text: prompt });
  if (children.length > 0) builder.sources.push("transcript");

  /** Pushes one session's parts as `agent`; returns its step count and its last message's text. */
  const pushParts = (agent: string, parts: OpenCodePart[]): { steps: number; lastText: string } => {
    let steps = 0;
    let lastMessage: string | undefined;
    let lastText: string[] = [];
    for (const part of parts) {
      if (part.type === "step-start") steps++;
      if (part.type === "step-finish") {
        totals.input += part.tokens?.input ?? 0;
        totals.output += part.tokens?.output ?? 0;
        totals.cacheRead += part.tokens?.cache?.read ?? 0;
        totals.cacheWrite += part.tokens?.cache?.write ?? 0;
        totals.cost += part.cost ?? 0;
      }
      if (part.type === "text" && part.text !== undefined) {
        if (part.messageID !== lastMessage) lastText = [];
        lastMessage = part.messageID;
        lastText.push(part.text);
        builder.push({
          type: "assistant_text",
          agent,
          text: part.text,
          ...(part.messageID ? { message_id: part.messageID } : {}),
          ...optional("timestamp", timestamp(part.time?.end)),
        });
      }
      if (part.type === "tool" && part.tool) pushTool(agent, part);
    }
    return { steps, lastText: lastText.join("\n") };
  };

  const pushTool = (agent: string, part: OpenCodePart) => {
    const tool = part.tool as string;
    const state = part.state ?? { status: "pending" };
    const id = part.callID ?? `missing:${part.id ?? builder.events.length}`;
    const rawInput = state.input ?? {};
    const name = openCodeToolName(tool);
    const mapped = openCodeToolInput(tool, rawInput);
    builder.push({
      type: "tool_call",
      agent,
      id,
      name,
      ...(name !== tool ? { original_name: tool } : {}),
      input: mapped,
      ...(mapped !== rawInput ? { original_input: rawInput } : {}),
      ...(part.messageID ? { message_id: part.messageID } : {}),
      ...optional("timestamp", timestamp(state.time?.start)),
    });
    const childId = tool === "task" ? stringField(state.metadata, "sessionId") : undefined;
    const child = childId ? children.find((session) => session.id === childId) : undefined;
    if (child) {
      builder.agent({
        id: child.id,
        type: child.agent ?? stringField(rawInput, "subagent_type") ?? "subagent",
        parent: agent,
        parent_tool_use_id: id,
      });
      builder.push({
        type: "subagent_start",
        agent,
        agent_id: child.id,
        ...optional("agent_type", child.agent ?? stringField(rawInput, "subagent_type")),
        parent_tool_use_id: id,
        ...optional("prompt", stringField(rawInput, "prompt")),
      });
      const { lastText } = pushParts(child.id, child.parts);
      builder.push({
        type: "subagent_stop",
        agent,
        agent_id: child.id,
        ...optional("agent_type", child.agent),
        ...(lastText ? { last_message: lastText } : {}),
      });
    } else if (childId) {
      builder.note({
        kind: "other",
        message: `the subagent session ${childId} of task call ${id} was not found`,
        tool_use_id: id,
      });
    }
    if (
      state.status === "error" &&
      (state.error?.startsWith(REJECTED) || state.error?.startsWith(RULE_DENIED))
    ) {
      const asked = state.error.startsWith(REJECTED);
      if (asked) builder.push({ type: "permission_request", agent, id, tool_name: name, input: mapped });
      builder.push({
        type: "permission_denied",
        agent,
        id,
        tool_name: name,
        message: asked
          ? `OpenCode auto-rejected an "ask" permission${asks.has(tool) ? ` (${tool})` : ""}`
          : state.error,
      });
      denials.push({ tool_name: name, tool_use_id: id, tool_input: mapped });
    }
    if (state.status === "completed" || state.status === "error") {
      const start = state.time?.start;
      const end = state.time?.end;
      builder.push({
        type: "tool_result",
        agent,
        id,
        output: state.status === "completed" ? (state.output ?? "") : (state.error ?? ""),
        is_error: state.status === "error",
        ...optional("error", state.status === "error" ? state.error : undefined),
        ...(start !== undefined && end !== undefined && end >= start ? { duration_ms: end - start } : {}),
        ...optional("timestamp", timestamp(end)),
      });
    }
  };

  const parts = input.lines.flatMap((line) => (line.part ? [line.part] : []));
  const { steps, lastText } = pushParts(MAIN_AGENT, parts);
  const lastFinish = [...parts].reverse().find((part) => part.type === "step-finish");
  const error = input.lines.find((line) => line.type === "error")?.error;

  const final: Omit<FinalResultEvent, "index"> = {
    type: "final_result",
    agent: MAIN_AGENT,
    subtype: "success",
    is_error: false,
    num_turns: steps,
    total_cost_usd: Math.round(totals.cost * 1e6) / 1e6,
    ...(rootSession ? { session_id: rootSession } : {}),
    ...(lastText ? { result: lastText } : {}),
    ...(input.durationMs !== undefined ? { duration_ms: input.durationMs } : {}),
    usage: {
      input_tokens: totals.input,
      output_tokens: totals.output,
      cache_read_input_tokens: totals.cacheRead,
      cache_creation_input_tokens: totals.cacheWrite,
    },
    ...(lastFinish?.reason ? { stop_reason: lastFinish.reason } : {}),
    ...(denials.length > 0 ? { permission_denials: denials } : {}),
    terminal_reason: "completed",
  };
  if (error) Object.assign(final, apiErrorFields(error));
  else if (input.stop?.kind === "api_error") {
    const status = /\b([45]\d\d)\b/.exec(input.stop.message)?.[1];
    Object.assign(final, {
      subtype: "error_during_execution",
      is_error: true,
      terminal_reason: "api_error",
      ...(status ? { api_error_status: Number(status) } : {}),
      errors: [
        `OpenCode was retrying a failed model call (attempt ${input.stop.attempt ?? "?"}): ${input.stop.message}`,
      ],
    });
  } else if (input.stop?.kind === "max_steps") {
    Object.assign(final, {
      subtype: "error_max_turns",
      is_error: true,
      terminal_reason: "max_turns",
      errors: [`Reached maximum number of turns (${input.stop.steps})`],
    });
  } else if (input.stop) {
    // Timed out, aborted or cut short: OpenCode never finished, so there is no result to report.
    if (input.stop.kind === "unfinished") {
      builder.note({
        kind: "other",
        message:
          "the OpenCode stream ends before the run finished (its last step asked for tools, or never ended)",
      });
    }
    return builder.build();
  }
  builder.push(final);
  return builder.build();
}

/** The final_result fields of an OpenCode `error` line (an API error, usually). */
function apiErrorFields(error: OpenCodeError): Partial<FinalResultEvent> {
  const message = error.data?.message ?? error.name ?? "unknown error";
  return {
    subtype: "error_during_execution",
    is_error: true,
    terminal_reason: error.name === "APIError" ? "api_error" : "error",
    ...(error.data?.statusCode !== undefined ? { api_error_status: error.data.statusCode } : {}),
    ...(error.name ? { api_error_type: error.name } : {}),
    errors: [message],
  };
}

/** The tools named by `! permission requested: bash (rm b.txt); auto-rejecting` lines of stderr. */
function askedTools(stderr: string): Set<string> {
  const plain = stderr.replace(/\u001b\[[0-9;]*m/g, "");
  return new Set(
    [...plain.matchAll(/permission requested: (\S+) .*auto-rejecting/g)].map((match) => match[1] as string),
  );
}

function stringField(value: Record<string, unknown> | undefined, key: string): string | undefined {
  const field = value?.[key];
  return typeof field === "string" ? field : undefined;
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/**
 * Whether a parsed JSON line is one of `opencode run --format json` rather than Claude Code's
 * stream-json: OpenCode's lines carry `sessionID` (camelCase) and a `part` or an `error`.
 */
export function isOpenCodeOutputLine(value: unknown): boolean {
  if (!isOpenCodeStreamLine(value) || typeof value.sessionID !== "string") return false;
  return (typeof value.part === "object" && value.part !== null) || value.type === "error";
}

export interface OpenCodeOutputOptions {
  /** The prompt(s): the stream does not echo them. */
  prompts?: string[];
  runId?: string;
  /** A cut-off last line is left out and passed here (else it throws, like any invalid line). */
  onTruncatedLine?: (error: JsonlLineError) => void;
}

/**
 * Whether OpenCode finished the run the stream tells: its last part is a step-finish whose reason
 * is not "tool-calls" (after a tool step OpenCode always starts another).
 */
export function openCodeStreamFinished(lines: readonly OpenCodeStreamLine[]): boolean {
  const last = [...lines].reverse().find((line) => line.part)?.part;
  return last?.type === "step-finish" && last.reason !== "tool-calls";
}

/**
 * The Run of a stored `opencode run --format json` stream (a run folder's stream.jsonl, or the bare
 * stdout), judged on what it holds: an `error` line makes an api_error final result, and a stream
 * that ends before OpenCode finished has no final result (like a timed-out run). Subagent events are
 * not in that stream (see buildOpenCodeRun's `children`).
 */
export function parseOpenCodeOutput(text: string, source: string, options: OpenCodeOutputOptions = {}): Run {
  const lines = parseJsonl<unknown>(
    text,
    source,
    options.onTruncatedLine ? { onTruncatedLine: options.onTruncatedLine } : {},
  ).filter(isOpenCodeStreamLine);
  const errored = lines.some((line) => line.type === "error");
  return buildOpenCodeRun({
    lines,
    ...(options.prompts ? { prompts: options.prompts } : {}),
    ...(options.runId ? { runId: options.runId } : {}),
    ...(errored || openCodeStreamFinished(lines) ? {} : { stop: { kind: "unfinished" as const } }),
  });
}

/** parseOpenCodeOutput of a file. */
export function runFromOpenCodeOutput(file: string, options: OpenCodeOutputOptions = {}): Run {
  return parseOpenCodeOutput(readFileSync(file, "utf8"), file, options);
}
