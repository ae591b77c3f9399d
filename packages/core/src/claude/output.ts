import { closeSync, openSync, readFileSync, readSync } from "node:fs";
import { readJsonlBatchesSync } from "../jsonl-lines.js";
import { type JsonlLineError, parseJsonl } from "../jsonl-reader.js";
import type { Run } from "../run.js";
import { RunBuilder, type RunSink } from "../run-builder.js";
import {
  runFromStreamJson,
  type StreamJsonOptions,
  streamJsonInto,
  streamJsonTranslator,
} from "./stream-json.js";

/**
 * What `claude -p` printed, in any of its output formats:
 * - "stream-json": `--output-format stream-json --verbose`, one JSON message a line;
 * - "json-messages": `--output-format json --verbose`, one JSON array of the same messages;
 * - "json-result": `--output-format json`, one JSON object, the result only: no tool calls, no
 *   assistant messages. It loads as a run holding just its final result, with a note saying so.
 */
export type ClaudeOutputFormat = "stream-json" | "json-messages" | "json-result";

export interface ClaudeOutput {
  run: Run;
  format: ClaudeOutputFormat;
}

export interface ClaudeOutputOptions extends StreamJsonOptions {
  /** A cut-off last line of stream-json (see readJsonl's onTruncatedLine). */
  onTruncatedLine?: (error: JsonlLineError) => void;
}

/** The note a result-only run carries. */
export const RESULT_ONLY_NOTE =
  "this is `claude --output-format json` output: the final result only, without the tool calls or messages of the run (capture with --output-format stream-json --verbose to see them)";

/**
 * Reads a file of Claude Code output (see ClaudeOutputFormat) into a Run. stream-json is read line
 * by line, so memory grows with the run, not with the file's bytes (a line longer than
 * MAX_JSONL_LINE_BYTES throws a JsonlLineError naming it).
 */
export function runFromClaudeOutput(file: string, options: ClaudeOutputOptions = {}): ClaudeOutput {
  if (startsWithBracket(file)) return parseClaudeOutput(readFileSync(file, "utf8"), file, options);
  const builder = new RunBuilder(["stream"]);
  const format = claudeOutputInto(file, builder, options);
  const run = builder.build();
  if (format === "json-result") run.notes.push({ kind: "other", message: RESULT_ONLY_NOTE });
  return { run, format };
}

/**
 * Reads a file of Claude Code output into `sink`, event by event (stream-json line by line, so what
 * is kept is up to the sink), and tells its format. A result-only file gets no note here: the
 * caller decides (runFromClaudeOutput adds RESULT_ONLY_NOTE).
 */
export function claudeOutputInto(
  file: string,
  sink: RunSink,
  options: ClaudeOutputOptions = {},
): ClaudeOutputFormat {
  const { onTruncatedLine, ...streamOptions } = options;
  if (startsWithBracket(file)) {
    const [messages] = parseJsonl<unknown>(readFileSync(file, "utf8").replace(/\r?\n(?=.)/g, " "), file);
    if (Array.isArray(messages)) {
      streamJsonInto(messages, sink, streamOptions);
      return "json-messages";
    }
  }
  let count = 0;
  let first: unknown;
  // The lines are handed to the translator a batch at a time (one generator resumption a batch).
  const translator = streamJsonTranslator(sink, streamOptions);
  for (const batch of readJsonlBatchesSync(file, onTruncatedLine ? { onTruncatedLine } : {})) {
    for (const { value } of batch) {
      if (count++ === 0) first = value;
      translator.line(value);
    }
  }
  translator.end();
  const only = count === 1 ? (first as { type?: unknown } | null) : undefined;
  return only && typeof only === "object" && only.type === "result" ? "json-result" : "stream-json";
}

/** Whether the file's first non-blank character is "[" (`--output-format json --verbose`). */
function startsWithBracket(file: string): boolean {
  const fd = openSync(file, "r");
  try {
    const head = Buffer.alloc(4096);
    const read = readSync(fd, head, 0, head.length, 0);
    return head.subarray(0, read).toString("utf8").trimStart().startsWith("[");
  } finally {
    closeSync(fd);
  }
}

/**
 * Parses Claude Code output already in memory into a Run, telling which format it was. Invalid
 * JSON throws a JsonlLineError naming `source` and the line (a cut-off last line is left out).
 */
export function parseClaudeOutput(
  text: string,
  source: string,
  options: ClaudeOutputOptions = {},
): ClaudeOutput {
  const { onTruncatedLine, ...streamOptions } = options;
  if (text.trimStart().startsWith("[")) {
    const [messages] = parseJsonl<unknown>(text.replace(/\r?\n(?=.)/g, " "), source);
    if (Array.isArray(messages)) {
      return { run: runFromStreamJson(messages, streamOptions), format: "json-messages" };
    }
  }
  const lines = parseJsonl<unknown>(text, source, onTruncatedLine ? { onTruncatedLine } : {});
  const only = lines.length === 1 ? (lines[0] as { type?: unknown } | null) : undefined;
  if (only && typeof only === "object" && only.type === "result") {
    const run = runFromStreamJson(lines, streamOptions);
    run.notes.push({ kind: "other", message: RESULT_ONLY_NOTE });
    return { run, format: "json-result" };
  }
  return { run: runFromStreamJson(lines, streamOptions), format: "stream-json" };
}
