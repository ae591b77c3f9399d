import { closeSync, openSync } from "node:fs";
import { JSONParser } from "@streamparser/json";
import type { RunSink } from "./run-builder.js";
import { RunFolderError } from "./run-folder.js";
import { readLaidOutResult } from "./run-result-layout.js";
import {
  cutOff,
  fileChunks,
  ProblemAt,
  RunResultPieces,
  type RunResultRead,
  valueTooLong,
} from "./run-result-pieces.js";

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
  const here = (byte: number) => pieces.where(`byte ${byte}`);
  // Bytes fed to the parser, and where the last value it gave ended: one value's text is what lies between.
  let fed = 0;
  let lastValueAt = 0;
  const parser = new JSONParser({
    // Each event of run.events; each field of the run (meta, agents, notes) as it ends, before its
    // events; each field of the result. Events are dropped from their array as they come (the parser
    // keeps an emitted value's parent whole while an ancestor is still to be emitted).
    paths: ["$.run.events.*", "$.run.*", "$.*"],
    keepStack: false,
  });
  parser.onValue = ({ value, key, parent, stack }) => {
    lastValueAt = fed;
    if (stack.length === 3) {
      // An element of run.events (the only path three deep).
      if (Array.isArray(parent)) parent.length = 0;
      pieces.event(value);
    } else if (stack.length === 2) {
      if (stack[1]?.key === "run") pieces.runField(String(key), value);
    } else if (stack.length === 1) {
      pieces.resultField(String(key), value);
    }
  };

  const fd = openSync(file, "r");
  try {
    for (const { chunk, at } of fileChunks(fd)) {
      fed = at;
      writeTo(parser, chunk, () => here(fed));
      fed += chunk.length;
      if (fed - lastValueAt > maxValueBytes)
        throw valueTooLong(here(lastValueAt), maxValueBytes, lastValueAt);
    }
  } finally {
    closeSync(fd);
  }
  if (!parser.isEnded) throw cutOff(here(fed), fed);
  return pieces.finish();
}

/** Feeds `chunk` to the parser; what it cannot parse is a ProblemAt at the current field. */
function writeTo(parser: JSONParser, chunk: Uint8Array, field: () => string): void {
  try {
    parser.write(chunk);
  } catch (error) {
    if (error instanceof ProblemAt) throw error;
    throw new ProblemAt(field(), `not valid JSON: ${(error as Error).message}`);
  }
}
