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
  const parse = (bytes: Buffer, last: boolean): { value: unknown; line: number } | undefined => {
    lineNumber++;
    const text = bytes.toString("utf8");
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
        const piece = chunk.subarray(start, newline);
        if (pendingBytes + piece.length > limit) throw lineTooLongError(file, lineNumber + 1, limit);
        const bytes = pendingBytes > 0 ? Buffer.concat([...pending, piece]) : piece;
        pending = [];
        pendingBytes = 0;
        const record = parse(stripCr(bytes), false);
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
      const record = parse(stripCr(Buffer.concat(pending)), true);
      if (record) yield record;
    }
  } finally {
    closeSync(fd);
  }
}

function stripCr(bytes: Buffer): Buffer {
  return bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.subarray(0, -1) : bytes;
}
