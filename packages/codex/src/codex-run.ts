import {
  type FinalResultEvent,
  MAIN_AGENT,
  type Run,
  RunBuilder,
  type RunEventInput,
  type Usage,
} from "@evals/core";
import { parsePatch } from "./patch.js";
import { codexToolInput, codexToolName, patchToolCall, unwrapShellCommand } from "./vocabulary.js";

/** One line of `codex exec --json` (0.169.0). */
export interface CodexStreamLine {
  type: string;
  thread_id?: string;
  item?: CodexItem;
  usage?: Record<string, number>;
  error?: { message?: string };
  message?: string;
  [key: string]: unknown;
}

export interface CodexItem {
  id: string;
  type: string;
  text?: string;
  command?: string;
  aggregated_output?: string;
  exit_code?: number | null;
  status?: string;
  changes?: Array<{ path: string; kind: string }>;
  message?: string;
  [key: string]: unknown;
}

/**
 * A tool call as the model made it and the output the CLI sent back, seen at the loopback model
 * server: what the stream hides (call ids, patch texts, rejected patches, hook-denied commands).
 */
export interface CodexModelCall {
  call_id: string;
  name: string;
  /** A function call's parsed arguments, or `{ input }` for a custom tool (apply_patch's patch). */
  arguments: Record<string, unknown>;
  /** The raw input of a custom tool call (apply_patch's patch text). */
  input?: string;
  /** The output the CLI sent back, when it did. */
  output?: string;
}

/** The model's outputs in order: its texts and its tool calls (from the requests the server saw). */
export type CodexModelItem = { kind: "text"; text: string } | { kind: "call"; call: CodexModelCall };

/** How the runner ended the run, when it did. */
export type CodexStop =
  | { kind: "max_turns"; turns: number }
  | { kind: "timeout"; ms: number }
  | { kind: "aborted" };

export interface BuildCodexRunInput {
  lines: CodexStreamLine[];
  /** The model's texts and calls, from the loopback server (absent for a bare .jsonl). */
  modelItems?: CodexModelItem[];
  /** How many model requests the run made (from the loopback server). */
  modelRequests?: number;
  /** The HTTP status of the last model response, when it was an error. */
  lastErrorStatus?: number;
  prompts?: string[];
  runId?: string;
  cwd?: string;
  model?: string;
  version?: string;
  stop?: CodexStop;
  exitCode?: number | null;
  durationMs?: number;
}

/** Outputs that say a call was refused rather than run. */
const REFUSED = /patch rejected|rejected by user approval|blocked by PreToolUse hook|blocked by policy/i;

/**
 * Turns a Codex run (the lines of `codex exec --json`, and what the loopback server saw of the
 * model's calls) into a @evals/core Run in the shared vocabulary: exec_command -> Bash {command},
 * apply_patch -> one Write or Edit per file, texts, outputs with their exit status, calls the stream
 * does not show (a rejected patch, a hook-denied command) recovered from the model's requests, and
 * one final_result with usage and the outcome.
 */
export function buildCodexRun(input: BuildCodexRunInput): Run {
  const builder = new RunBuilder(["stream"]);
  const threadId = input.lines.find((line) => line.type === "thread.started")?.thread_id;
  builder.meta = {
    ...(input.runId ? { id: input.runId } : {}),
    ...(threadId ? { session_id: threadId } : {}),
    ...(input.cwd ? { cwd: input.cwd } : {}),
    ...(input.model ? { model: input.model } : {}),
    agent: "codex",
    ...(input.version ? { agent_version: input.version } : {}),
  };
  for (const prompt of input.prompts ?? [])
    builder.push({ type: "user_message", agent: MAIN_AGENT, text: prompt });

  const modelItems = input.modelItems ?? [];
  const used = new Set<number>();
  /** The model item a stream item shows: the first unused one of that kind that fits. */
  const claim = (fits: (item: CodexModelItem) => boolean): number | undefined => {
    const position = modelItems.findIndex((item, index) => !used.has(index) && fits(item));
    if (position < 0) return undefined;
    used.add(position);
    return position;
  };
  const denials: NonNullable<FinalResultEvent["permission_denials"]> = [];
  /** Pushes the model's calls before `position` that no stream item showed (refused, hidden). */
  const flushHidden = (before: number) => {
    for (const [position, item] of modelItems.entries()) {
      if (position >= before || used.has(position)) continue;
      used.add(position);
      if (item.kind !== "call") continue;
      pushHiddenCall(item.call);
    }
  };
  const pushHiddenCall = (call: CodexModelCall) => {
    const output = call.output ?? "";
    const refused = REFUSED.test(output);
    const calls = toolCallsOf(call, input.cwd);
    for (const { id, name, input: toolInput, original } of calls) {
      builder.push({ type: "tool_call", agent: MAIN_AGENT, id, name, ...original, input: toolInput });
      if (refused) {
        builder.push({ type: "permission_denied", agent: MAIN_AGENT, id, tool_name: name, message: output });
        denials.push({ tool_name: name, tool_use_id: id, tool_input: toolInput });
      }
      builder.push({
        type: "tool_result",
        agent: MAIN_AGENT,
        id,
        output,
        is_error: refused,
        ...(refused ? { error: output } : {}),
      });
    }
    builder.note({
      kind: "other",
      message: `${call.name} call ${call.call_id} is not in the --json stream (${refused ? "refused" : "hidden"}); recovered from the model requests`,
      tool_use_id: call.call_id,
    });
  };

  /** Stream item id -> the tool calls pushed for it (their ids and names). */
  const started = new Map<string, Array<{ id: string; name: string }>>();
  let lastText: string | undefined;
  let usage: Usage | undefined;
  let failure: string | undefined;
  const reconnects: string[] = [];

  for (const line of input.lines) {
    const item = line.item;
    if ((line.type === "item.started" || line.type === "item.completed") && item) {
      if (item.type === "agent_message" && line.type === "item.completed") {
        const text = item.text ?? "";
        const position = claim((model) => model.kind === "text" && model.text.trim() === text.trim());
        if (position !== undefined) flushHidden(position);
        builder.push({ type: "assistant_text", agent: MAIN_AGENT, text });
        lastText = text;
      } else if (item.type === "command_execution" || item.type === "file_change") {
        let calls = started.get(item.id);
        if (!calls) {
          const position = claim((model) => model.kind === "call" && fitsItem(model.call, item));
          if (position !== undefined) flushHidden(position);
          const model =
            position === undefined ? undefined : (modelItems[position] as { call: CodexModelCall }).call;
          const pushed = model ? toolCallsOf(model, input.cwd) : streamToolCalls(item);
          calls = pushed.map(({ id, name }) => ({ id, name }));
          started.set(item.id, calls);
          for (const { id, name, input: toolInput, original } of pushed) {
            builder.push({ type: "tool_call", agent: MAIN_AGENT, id, name, ...original, input: toolInput });
          }
        }
        if (line.type === "item.completed") {
          const failed = item.status === "failed" || item.status === "declined";
          const output =
            item.type === "command_execution"
              ? (item.aggregated_output ?? "")
              : (item.changes ?? []).map((change) => `${change.kind} ${change.path}`).join("\n");
          for (const { id } of calls) {
            builder.push({
              type: "tool_result",
              agent: MAIN_AGENT,
              id,
              output,
              is_error: failed,
              ...(failed
                ? { error: item.exit_code != null ? `exit code ${item.exit_code}` : `status ${item.status}` }
                : {}),
            });
          }
        }
      } else if (item.type === "error" && line.type === "item.completed") {
        builder.note({ kind: "other", message: `codex: ${item.message ?? JSON.stringify(item)}` });
      }
    } else if (line.type === "turn.completed" && line.usage) {
      usage = addUsage(usage, line.usage);
    } else if (line.type === "turn.failed") {
      failure = line.error?.message ?? "the turn failed";
    } else if (line.type === "error" && typeof line.message === "string") {
      if (/^Reconnecting\.\.\./.test(line.message)) reconnects.push(line.message);
      else failure ??= line.message;
    }
  }
  flushHidden(modelItems.length);

  if (input.stop && input.stop.kind !== "max_turns") {
    // Timed out or aborted: Codex never finished, so there is no result to report.
    builder.note({
      kind: "other",
      message: `the run was ${input.stop.kind === "timeout" ? `killed after ${input.stop.ms} ms` : "aborted"} before Codex finished`,
    });
    return builder.build();
  }
  const final: RunEventInput & { type: "final_result" } = {
    type: "final_result",
    agent: MAIN_AGENT,
    subtype: "success",
    is_error: false,
    ...(input.modelRequests !== undefined ? { num_turns: input.modelRequests } : {}),
    ...(threadId ? { session_id: threadId } : {}),
    ...(lastText !== undefined && !failure ? { result: lastText } : {}),
    ...(input.durationMs !== undefined ? { duration_ms: input.durationMs } : {}),
    ...(usage ? { usage } : {}),
    ...(denials.length > 0 ? { permission_denials: denials } : {}),
    terminal_reason: "completed",
  };
  if (input.stop?.kind === "max_turns") {
    Object.assign(final, {
      subtype: "error_max_turns",
      is_error: true,
      terminal_reason: "max_turns",
      errors: [`Reached maximum number of turns (${input.stop.turns})`],
    });
    delete final.result;
  } else if (failure !== undefined) {
    const retried =
      reconnects.length > 0 ? ` (after ${reconnects.length} reconnects: retries exhausted)` : "";
    Object.assign(final, {
      subtype: "error_during_execution",
      is_error: true,
      terminal_reason: "api_error",
      ...(input.lastErrorStatus !== undefined ? { api_error_status: input.lastErrorStatus } : {}),
      errors: [`${failure}${retried}`],
    });
  } else if (!input.lines.some((line) => line.type === "turn.completed")) {
    builder.note({ kind: "other", message: "the Codex stream ends before its turn completed (cut short)" });
    return builder.build();
  }
  builder.push(final);
  return builder.build();
}

/** Whether a model call is what a stream item shows. */
function fitsItem(call: CodexModelCall, item: CodexItem): boolean {
  if (item.type === "file_change") return call.name === "apply_patch";
  if (item.type !== "command_execution" || call.name !== "exec_command") return false;
  const cmd = String(call.arguments.cmd ?? "");
  return item.command === cmd || unwrapShellCommand(item.command ?? "") === cmd;
}

interface PushedCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
  original: { original_name?: string; original_input?: Record<string, unknown> };
}

/** The shared tool calls of a model call: one, or one per file of an apply_patch. */
function toolCallsOf(call: CodexModelCall, cwd: string | undefined): PushedCall[] {
  if (call.name === "apply_patch") {
    const patch = call.input ?? String(call.arguments.input ?? "");
    const operations = parsePatch(patch);
    if (operations.length === 0) {
      return [{ id: call.call_id, name: "apply_patch", input: { patch }, original: {} }];
    }
    return operations.map((operation, index) => {
      const mapped = patchToolCall(operation, cwd);
      return {
        id: index === 0 ? call.call_id : `${call.call_id}#${index + 1}`,
        name: mapped.name,
        input: mapped.input,
        original: { original_name: "apply_patch", original_input: { patch } },
      };
    });
  }
  const name = codexToolName(call.name);
  const input = codexToolInput(call.name, call.arguments);
  return [
    {
      id: call.call_id,
      name,
      input,
      original: name === call.name ? {} : { original_name: call.name, original_input: call.arguments },
    },
  ];
}

/** The tool calls a stream item shows when the model's call is not known (a bare .jsonl). */
function streamToolCalls(item: CodexItem): PushedCall[] {
  if (item.type === "command_execution") {
    const command = item.command ?? "";
    return [
      {
        id: item.id,
        name: "Bash",
        input: { command: unwrapShellCommand(command) },
        original: { original_name: "exec_command", original_input: { command } },
      },
    ];
  }
  const changes = item.changes ?? [];
  return changes.map((change, index) => ({
    id: index === 0 ? item.id : `${item.id}#${index + 1}`,
    // The stream names the file and what happened to it, not the patch: no content, no old/new strings.
    name: change.kind === "add" ? "Write" : change.kind === "update" ? "Edit" : "apply_patch",
    input: { file_path: change.path, ...(change.kind === "delete" ? { delete: true } : {}) },
    original: { original_name: "apply_patch", original_input: { changes } },
  }));
}

function addUsage(total: Usage | undefined, usage: Record<string, number>): Usage {
  const sum = (a: number | undefined, b: number | undefined) => (a ?? 0) + (b ?? 0);
  return {
    input_tokens: sum(total?.input_tokens, usage.input_tokens),
    output_tokens: sum(total?.output_tokens, usage.output_tokens),
    cache_read_input_tokens: sum(total?.cache_read_input_tokens, usage.cached_input_tokens),
    cache_creation_input_tokens: sum(total?.cache_creation_input_tokens, usage.cache_write_input_tokens),
    reasoning_output_tokens: sum(
      total?.reasoning_output_tokens as number | undefined,
      usage.reasoning_output_tokens,
    ),
  };
}

/** Parses the text of a `codex exec --json` stream; lines that are not JSON are skipped. */
export function parseCodexStream(text: string): CodexStreamLine[] {
  const lines: CodexStreamLine[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const value = JSON.parse(line) as CodexStreamLine;
      if (value && typeof value === "object" && typeof value.type === "string") lines.push(value);
    } catch {
      // Not an event line.
    }
  }
  return lines;
}

/**
 * A Run from the text of a bare `codex exec --json` stream (for `evals grade --agent codex`). Without
 * the model's requests, tool call ids are the CLI's item ids, patches show only the files they
 * touched, and refused calls are not there (see the README).
 */
export function runFromCodexJsonl(text: string, options: Omit<BuildCodexRunInput, "lines"> = {}): Run {
  return buildCodexRun({ ...options, lines: parseCodexStream(text) });
}
