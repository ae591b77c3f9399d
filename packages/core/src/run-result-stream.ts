import { closeSync, openSync } from "node:fs";
import type { RunSink } from "./run-builder.js";
import { RunFolderError } from "./run-folder.js";
import { readLaidOutResult } from "./run-result-layout.js";
import { fileChunks, ProblemAt, RunResultPieces, type RunResultRead } from "./run-result-pieces.js";
import { ResultTokens } from "./run-result-tokens.js";

export type { RunResultFields, RunResultRead } from "./run-result-pieces.js";

/** The most JSON text one value of a result.json may take (an event, a field): a bigger one is refused. */
export const MAX_RESULT_VALUE_BYTES = 64 * 1024 * 1024;

/**
 * Reads a stored AgentRunResult (a run folder's result.json) into `sink`, one event at a time, each
 * checked by the Run schema: the run's meta, agents and notes as they come, its events pushed in
 * order, none kept here; the result's other fields are returned. So a long run's result is graded in
 * bounded memory: laid out as writeRunFolder writes it, line by line (run-result-layout.ts), else
 * with @streamparser/json, which parses any layout piece by piece. Throws a RunFolderError
 * naming the file and the field (or byte) of what is not valid JSON or not a valid result, or of a
 * value (an event, a field) of more than `options.maxValueBytes` (default MAX_RESULT_VALUE_BYTES).
 */
export function runResultInto(
  file: string,
  sink: RunSink,
  options: { maxValueBytes?: number } = {},
): RunResultRead {
  try {
    return readInto(file, sink, options.maxValueBytes ?? MAX_RESULT_VALUE_BYTES);
  } catch (error) {
    if (error instanceof ProblemAt) throw new RunFolderError(`${file} (${error.where})`, error.message);
    throw error;
  }
}

function readInto(file: string, sink: RunSink, maxValueBytes: number): RunResultRead {
  // As writeRunFolder writes it, line by line (several times faster); else with the JSON tokenizer.
  const laidOut = new RunResultPieces(sink);
  if (readLaidOutResult(file, laidOut, maxValueBytes)) return laidOut.finish();
  const pieces = new RunResultPieces(sink);
  const tokens = new ResultTokens(pieces, maxValueBytes);
  const fd = openSync(file, "r");
  try {
    for (const { chunk, at } of fileChunks(fd)) tokens.write(chunk, at);
  } finally {
    closeSync(fd);
  }
  tokens.end();
  return pieces.finish();
}
