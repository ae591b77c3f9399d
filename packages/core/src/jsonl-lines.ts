import { closeSync, openSync, readSync } from "node:fs";
import {
  JsonlLineError,
  type JsonlReadOptions,
  lineTooLongError,
  MAX_JSONL_LINE_BYTES,
  reportTruncated,
  truncatedLineError,
} from "./jsonl-reader.js";

const CHUNK_BYTES = 1024 * 1024;

/** How readJsonlLinesSync reads: the longest line it holds, and where a cut-off last line is reported. */
export interface JsonlLinesOptions extends Pick<JsonlReadOptions<unknown>, "onTruncatedLine"> {
  /** Default MAX_JSONL_LINE_BYTES. */
  maxLineBytes?: number;
}

/**
 * Reads a JSONL file line by line, synchronously and in bounded memory (one chunk and the current
 * line): each non-blank line is parsed and yielded with its line number. A line that is not JSON
 * throws a JsonlLineError, except a cut-off last line (no final newline), which is left out and
 * reported (see readJsonl); a line longer than `maxLineBytes` throws before it is read whole.
 */
export function* readJsonlLinesSync(
  file: string,
  options: JsonlLinesOptions = {},
): Generator<{ value: unknown; line: number }> {
  const limit = options.maxLineBytes ?? MAX_JSONL_LINE_BYTES;
  const fd = openSync(file, "r");
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let lineNumber = 0;
  const parse = (text: string, last: boolean): { value: unknown; line: number } | undefined => {
    lineNumber++;
    if (text.trim() === "") return undefined;
    try {
      return { value: JSON.parse(text), line: lineNumber };
    } catch (error) {
      if (last) {
        reportTruncated(truncatedLineError(file, lineNumber), options);
        return undefined;
      }
      throw new JsonlLineError(file, lineNumber, `invalid JSON: ${(error as Error).message}`);
    }
  };
  try {
    for (;;) {
      const read = readSync(fd, chunk, 0, CHUNK_BYTES, null);
      if (read === 0) break;
      let start = 0;
      for (let newline = chunk.indexOf(0x0a, 0); newline >= 0 && newline < read; ) {
        if (pendingBytes + newline - start > limit) throw lineTooLongError(file, lineNumber + 1, limit);
        // A line within the chunk is decoded straight from it: no Buffer object for each line.
        const text =
          pendingBytes > 0
            ? decode(Buffer.concat([...pending, chunk.subarray(start, newline)]))
            : decode(chunk, start, newline);
        pending = [];
        pendingBytes = 0;
        const record = parse(text, false);
        if (record) yield record;
        start = newline + 1;
        newline = chunk.indexOf(0x0a, start);
      }
      if (start < read) {
        pendingBytes += read - start;
        if (pendingBytes > limit) throw lineTooLongError(file, lineNumber + 1, limit);
        pending.push(Buffer.from(chunk.subarray(start, read)));
      }
    }
    if (pendingBytes > 0) {
      const record = parse(decode(Buffer.concat(pending)), true);
      if (record) yield record;
    }
  } finally {
    closeSync(fd);
  }
}

/** The UTF-8 text of `bytes` from `start` to `end`, without a final carriage return. */
function decode(bytes: Buffer, start = 0, end = bytes.length): string {
  return bytes.toString("utf8", start, end > start && bytes[end - 1] === 0x0d ? end - 1 : end);
}
