import { readFileSync } from "node:fs";
import {
  type FinalResultEvent,
  type JsonlLineError,
  MAIN_AGENT,
  parseJsonl,
  type Run,
  RunBuilder,
} from "@evals/core";
import { costOf, type GeminiPricing, type GeminiStats } from "./pricing.js";
import { geminiToolInput, geminiToolName } from "./vocabulary.js";

/** One line of `gemini --output-format stream-json` (0.61.0: init, message, tool_use, tool_result, error, result). */
export interface GeminiStreamEvent {
  type: "init" | "message" | "tool_use" | "tool_result" | "error" | "result" | (string & {});
  timestamp?: string;
  session_id?: string;
  model?: string;
  role?: "user" | "assistant" | (string & {});
  content?: string;
  delta?: boolean;
  tool_name?: string;
  tool_id?: string;
  parameters?: Record<string, unknown>;
  status?: "success" | "error" | (string & {});
  output?: string;
  error?: { type?: string; message?: string };
  stats?: GeminiStats;
  [key: string]: unknown;
}

/** What an AfterTool hook was given: the tool, its input and what the model was told (`llmContent`). */
export interface GeminiAfterTool {
  tool_name: string;
  tool_input: Record<string, unknown>;
  tool_response?: { llmContent?: unknown; returnDisplay?: unknown; error?: unknown };
  timestamp?: string;
}

/** How the runner stopped the run, when it did. */
export type GeminiRunnerStop = { kind: "timeout" } | { kind: "aborted" };

export interface BuildGeminiRunInput {
  events: GeminiStreamEvent[];
  /** The AfterTool hook payloads of the run (they carry a shell command's exit code). */
  afterTool?: GeminiAfterTool[];
  prompts?: string[];
  runId?: string;
  cwd?: string;
  version?: string;
  /** The CLI's exit code: the HTTP status mod 256 after an API error, 53 at the turn limit. */
  exitCode?: number | null;
  stop?: GeminiRunnerStop;
  durationMs?: number;
  pricing?: GeminiPricing;
}

/** The exit code a shell command's output reports to the model (`Exit Code: N`), if any. */
export function shellExitCode(text: unknown): number | undefined {
  if (typeof text !== "string") return undefined;
  const match = /(?:^|\n)Exit Code: (-?\d+)/.exec(text);
  return match ? Number(match[1]) : undefined;
}

/** The text of a hook's `llmContent` (a string, or parts with text). */
function llmText(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value))
    return value.map((part) => (typeof part?.text === "string" ? part.text : "")).join("\n");
  return "";
}

/**
 * Turns a gemini stream-json run into a @evals/core Run in the shared vocabulary: tool names and
 * inputs mapped (`run_shell_command {command}` -> `Bash {command}`, the original kept in
 * `original_name` / `original_input`), each tool_result with its status, and one final_result with
 * tokens, cost and the outcome (`result` status and error: an API error, the turn limit).
 *
 * Gemini reports a shell command that exits non-zero as `success`: the exit code is only in what
 * the model is told, which the AfterTool hook sees. With `afterTool` given, such a command is an
 * error (`Exit Code: N`); without it (a bare stream), it reads as a success, and a note says so.
 */
export function buildGeminiRun(input: BuildGeminiRunInput): Run {
  const builder = new RunBuilder(input.afterTool ? ["stream", "hooks"] : ["stream"]);
  const init = input.events.find((event) => event.type === "init");
  builder.meta = {
    ...(input.runId ? { id: input.runId } : {}),
    ...(init?.session_id ? { session_id: init.session_id } : {}),
    ...(input.cwd ? { cwd: input.cwd } : {}),
    ...(init?.model ? { model: init.model } : {}),
    agent: "gemini",
    ...(input.version ? { agent_version: input.version } : {}),
  };
  const afterTool = [...(input.afterTool ?? [])];
  const calls = new Map<string, { name: string; input: Record<string, unknown> }>();
  let text: { parts: string[]; timestamp?: string } | undefined;
  let lastAnswer = "";
  let turns = 0;
  let previous: string | undefined;
  let shellWithoutHooks = false;
  const prompts = input.prompts ? [...input.prompts] : undefined;

  const flushText = () => {
    if (!text) return;
    lastAnswer = text.parts.join("");
    builder.push({
      type: "assistant_text",
      agent: MAIN_AGENT,
      text: lastAnswer,
      ...(text.timestamp ? { timestamp: text.timestamp } : {}),
    });
    text = undefined;
  };

  for (const event of input.events) {
    // A model turn starts with its first text or call after the prompt or a tool result.
    const answering = (event.type === "message" && event.role === "assistant") || event.type === "tool_use";
    if (answering && previous !== "answer") {
      turns++;
      lastAnswer = "";
    }
    previous = answering ? "answer" : event.type;
    if (event.type === "message" && event.role === "user") {
      flushText();
      // The stream echoes the prompt (with any piped stdin): the given prompt is the one kept.
      const prompt = prompts?.shift() ?? event.content ?? "";
      builder.push({ type: "user_message", agent: MAIN_AGENT, text: prompt, ...at(event) });
    } else if (event.type === "message" && event.role === "assistant") {
      text ??= { parts: [], ...(event.timestamp ? { timestamp: event.timestamp } : {}) };
      text.parts.push(event.content ?? "");
    } else if (event.type === "tool_use") {
      flushText();
      const tool = event.tool_name ?? "unknown";
      const raw = event.parameters ?? {};
      const mapped = geminiToolInput(tool, raw);
      const name = geminiToolName(tool);
      const id = event.tool_id ?? `missing:${builder.events.length}`;
      calls.set(id, { name: tool, input: raw });
      builder.push({
        type: "tool_call",
        agent: MAIN_AGENT,
        id,
        name,
        ...(name !== tool ? { original_name: tool } : {}),
        ...(mapped !== raw ? { original_input: raw } : {}),
        input: mapped,
        ...at(event),
      });
    } else if (event.type === "tool_result") {
      flushText();
      const id = event.tool_id ?? `missing:${builder.events.length}`;
      const call = calls.get(id);
      let isError = event.status === "error";
      let error = event.error?.message;
      if (call?.name === "run_shell_command" && !isError) {
        const hook = takeHook(afterTool, call);
        if (hook) {
          const exit = shellExitCode(llmText(hook.tool_response?.llmContent));
          if (exit !== undefined && exit !== 0) {
            isError = true;
            error = `Exit Code: ${exit}`;
          }
        } else if (!input.afterTool) {
          shellWithoutHooks = true;
        }
      } else if (call) {
        takeHook(afterTool, call);
      }
      builder.push({
        type: "tool_result",
        agent: MAIN_AGENT,
        id,
        output: event.output ?? "",
        is_error: isError,
        ...(error ? { error: event.error?.type ? `${error} (${event.error.type})` : error } : {}),
        ...at(event),
      });
    } else if (event.type === "error") {
      builder.note({
        kind: "other",
        message: `gemini reported an error: ${event.error?.message ?? JSON.stringify(event)}`,
      });
    }
  }
  flushText();
  if (shellWithoutHooks) {
    builder.note({
      kind: "other",
      message:
        "no AfterTool hook payloads: a shell command that exited non-zero reads as a success (gemini's stream reports every shell command as success)",
    });
  }
  const result = [...input.events].reverse().find((event) => event.type === "result");
  if (!result) {
    if (!input.stop && input.exitCode !== undefined && input.exitCode !== null && input.exitCode !== 0) {
      builder.push(failedWithoutResult(input.exitCode, init?.session_id, input.durationMs));
    } else if (!input.stop) {
      builder.note({
        kind: "other",
        message: "the gemini stream ends before its result line: the run was cut short",
      });
    }
    return builder.build();
  }
  const results = input.events.filter((event) => event.type === "result");
  builder.push(
    finalResult(
      { ...result, stats: summedStats(results) },
      { turns, lastAnswer, input, sessionId: init?.session_id },
    ),
  );
  return builder.build();
}

/** The stats of every `result` line added up (one per prompt of a multi-turn run), model by model. */
function summedStats(results: GeminiStreamEvent[]): GeminiStats {
  if (results.length === 1) return results[0]?.stats ?? {};
  const total: GeminiStats = {};
  const add = (into: Record<string, unknown>, from: Record<string, unknown>) => {
    for (const [key, value] of Object.entries(from)) {
      if (typeof value === "number") into[key] = ((into[key] as number | undefined) ?? 0) + value;
    }
  };
  for (const result of results) {
    const stats = result.stats ?? {};
    add(total as Record<string, unknown>, stats as Record<string, unknown>);
    for (const [model, tokens] of Object.entries(stats.models ?? {})) {
      total.models ??= {};
      total.models[model] ??= {};
      add(total.models[model] as Record<string, unknown>, tokens as Record<string, unknown>);
    }
  }
  return total;
}

/** The AfterTool payload of a call (the first left with the same tool and input), taken off the list. */
function takeHook(
  hooks: GeminiAfterTool[],
  call: { name: string; input: Record<string, unknown> },
): GeminiAfterTool | undefined {
  const key = JSON.stringify(call.input);
  const position = hooks.findIndex(
    (hook) => hook.tool_name === call.name && JSON.stringify(hook.tool_input) === key,
  );
  return position === -1 ? undefined : hooks.splice(position, 1)[0];
}

function at(event: GeminiStreamEvent): { timestamp?: string } {
  return event.timestamp ? { timestamp: event.timestamp } : {};
}

/** The exit code after an API error is its HTTP status mod 256: 144 is 400, 244 is 500, ... */
function statusFromExit(exitCode: number | null | undefined): number | undefined {
  if (exitCode === null || exitCode === undefined || exitCode < 144 || exitCode > 255) return undefined;
  return exitCode + 256;
}

function finalResult(
  result: GeminiStreamEvent,
  context: { turns: number; lastAnswer: string; input: BuildGeminiRunInput; sessionId: string | undefined },
): Omit<FinalResultEvent, "index"> {
  const stats = result.stats ?? {};
  const cost = costOf(stats, context.input.pricing);
  const final: Omit<FinalResultEvent, "index"> = {
    type: "final_result",
    agent: MAIN_AGENT,
    subtype: "success",
    is_error: false,
    num_turns: context.turns,
    ...(cost !== undefined ? { total_cost_usd: cost } : {}),
    ...(context.sessionId ? { session_id: context.sessionId } : {}),
    ...(context.lastAnswer ? { result: context.lastAnswer } : {}),
    ...(stats.duration_ms !== undefined
      ? { duration_ms: stats.duration_ms }
      : context.input.durationMs !== undefined
        ? { duration_ms: context.input.durationMs }
        : {}),
    usage: {
      input_tokens: stats.input_tokens ?? 0,
      output_tokens: stats.output_tokens ?? 0,
      cache_read_input_tokens: stats.cached ?? 0,
    },
    terminal_reason: "completed",
    ...at(result),
  };
  if (result.status !== "error") return final;
  const type = result.error?.type ?? "unknown";
  const message = result.error?.message ?? "gemini ended with an error";
  if (type === "FatalTurnLimitedError" || context.input.exitCode === 53) {
    return {
      ...final,
      subtype: "error_max_turns",
      is_error: true,
      terminal_reason: "max_turns",
      errors: [message],
    };
  }
  const status = apiStatusOf(message) ?? statusFromExit(context.input.exitCode);
  return {
    ...final,
    subtype: "error_during_execution",
    is_error: true,
    terminal_reason: /API Error|status/i.test(message) || status !== undefined ? "api_error" : "error",
    ...(status !== undefined ? { api_error_status: status } : {}),
    api_error_type: type,
    errors: [message],
  };
}

/** The HTTP status in gemini's `[API Error: {"error":{"code":400,...}}]` message, if it names one. */
function apiStatusOf(message: string): number | undefined {
  const code = /"code":\s*(\d{3})/.exec(message)?.[1] ?? /\bstatus (\d{3})\b/.exec(message)?.[1];
  return code ? Number(code) : undefined;
}

/** A run that exited non-zero without a result line (a start-up failure: auth, an untrusted folder). */
function failedWithoutResult(
  exitCode: number,
  sessionId: string | undefined,
  durationMs: number | undefined,
): Omit<FinalResultEvent, "index"> {
  const status = statusFromExit(exitCode);
  return {
    type: "final_result",
    agent: MAIN_AGENT,
    subtype: "error_during_execution",
    is_error: true,
    ...(sessionId ? { session_id: sessionId } : {}),
    ...(durationMs !== undefined ? { duration_ms: durationMs } : {}),
    terminal_reason: status !== undefined ? "api_error" : "error",
    ...(status !== undefined ? { api_error_status: status } : {}),
    errors: [`gemini exited with code ${exitCode} before reporting a result`],
  };
}

/** Parses the lines of `gemini --output-format stream-json` (other lines, such as warnings, are skipped). */
export function parseGeminiStream(
  text: string,
  source: string,
  options: { onTruncatedLine?: (error: JsonlLineError) => void } = {},
): GeminiStreamEvent[] {
  return parseJsonl<unknown>(
    text,
    source,
    options.onTruncatedLine ? { onTruncatedLine: options.onTruncatedLine } : {},
  ).filter((line): line is GeminiStreamEvent => {
    return line !== null && typeof line === "object" && typeof (line as { type?: unknown }).type === "string";
  });
}

export interface GeminiOutputOptions {
  /** The prompt(s), when they differ from what the stream echoes. */
  prompts?: string[];
  runId?: string;
  /** AfterTool hook payloads, when they were captured (else failing shell commands read as successes). */
  afterTool?: GeminiAfterTool[];
  pricing?: GeminiPricing;
  onTruncatedLine?: (error: JsonlLineError) => void;
}

/**
 * The Run of a bare `gemini -p ... --output-format stream-json` output (for `evals grade --agent
 * gemini`): judged on what it holds; an error result is an API error or the turn limit, a stream
 * without a result line has no final result (like a timed-out run).
 */
export function parseGeminiOutput(text: string, source: string, options: GeminiOutputOptions = {}): Run {
  const events = parseGeminiStream(
    text,
    source,
    options.onTruncatedLine ? { onTruncatedLine: options.onTruncatedLine } : {},
  );
  return buildGeminiRun({
    events,
    ...(options.prompts ? { prompts: options.prompts } : {}),
    ...(options.runId ? { runId: options.runId } : {}),
    ...(options.afterTool ? { afterTool: options.afterTool } : {}),
    ...(options.pricing ? { pricing: options.pricing } : {}),
  });
}

/** parseGeminiOutput of a file. */
export function runFromGeminiOutput(file: string, options: GeminiOutputOptions = {}): Run {
  return parseGeminiOutput(readFileSync(file, "utf8"), file, options);
}
