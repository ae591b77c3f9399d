import { closeSync, openSync, readSync } from "node:fs";
import {
  JsonlLineError,
  type JsonlReadOptions,
  lineTooLongError,
  MAX_JSONL_LINE_BYTES,
  reportTruncated,
  truncatedLineError,
  withoutBom,
} from "./jsonl-reader.js";

const CHUNK_BYTES = 1024 * 1024;
/** The most bytes of lines decoded into one string (see readJsonlLinesSync). */
const BLOCK_BYTES = 32 * 1024;

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
  for (const batch of readJsonlBatchesSync(file, options)) yield* batch;
}

/**
 * readJsonlLinesSync's lines a batch at a time (those of a decoded block): a reader that loops over
 * a long file's lines itself resumes a generator once a batch, not once a line. A batch's lines come
 * before the error of the line after them.
 */
export function* readJsonlBatchesSync(
  file: string,
  options: JsonlLinesOptions = {},
): Generator<{ value: unknown; line: number }[]> {
  const limit = options.maxLineBytes ?? MAX_JSONL_LINE_BYTES;
  const fd = openSync(file, "r");
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let lineNumber = 0;
  const parse = (text: string, last: boolean): { value: unknown; line: number } | undefined => {
    lineNumber++;
    if (lineNumber === 1) text = withoutBom(text);
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
      // The chunk's complete lines end at its last newline: a newline byte is never part of a
      // multi-byte character, so they are decoded in one go and split as text.
      const last = chunk.lastIndexOf(0x0a, read - 1);
      let start = 0;
      if (last >= 0 && pendingBytes > 0) {
        const newline = chunk.indexOf(0x0a);
        if (pendingBytes + newline > limit) throw lineTooLongError(file, lineNumber + 1, limit);
        const text = decode(Buffer.concat([...pending, chunk.subarray(0, newline)]));
        pending = [];
        pendingBytes = 0;
        const record = parse(text, false);
        if (record) yield [record];
        start = newline + 1;
      }
      while (start <= last) {
        // A block of lines at a time, under V8's large-object size: it dies young, cheaply (a
        // string of the whole chunk would wait for a full collection).
        let end = last - start > BLOCK_BYTES ? chunk.lastIndexOf(0x0a, start + BLOCK_BYTES) : last;
        if (end < start) end = chunk.indexOf(0x0a, start + BLOCK_BYTES);
        // Lines are measured only when the block could hold one over the limit.
        const measure = end - start > limit;
        const block = chunk.toString("utf8", start, end);
        const batch: { value: unknown; line: number }[] = [];
        try {
          for (let from = 0; ; ) {
            const newline = block.indexOf("\n", from);
            const stop = newline < 0 ? block.length : newline;
            const line = block.slice(from, stop);
            if (measure && Buffer.byteLength(line) > limit)
              throw lineTooLongError(file, lineNumber + 1, limit);
            const record = parse(line.endsWith("\r") ? line.slice(0, -1) : line, false);
            if (record) batch.push(record);
            if (newline < 0) break;
            from = newline + 1;
          }
        } catch (error) {
          if (batch.length > 0) yield batch;
          throw error;
        }
        if (batch.length > 0) yield batch;
        start = end + 1;
      }
      if (start < read) {
        pendingBytes += read - start;
        if (pendingBytes > limit) throw lineTooLongError(file, lineNumber + 1, limit);
        pending.push(Buffer.from(chunk.subarray(start, read)));
      }
    }
    if (pendingBytes > 0) {
      const record = parse(decode(Buffer.concat(pending)), true);
      if (record) yield [record];
    }
  } finally {
    closeSync(fd);
  }
}

/** The UTF-8 text of `bytes`, without a final carriage return. */
function decode(bytes: Buffer): string {
  const end = bytes.length;
  return bytes.toString("utf8", 0, end > 0 && bytes[end - 1] === 0x0d ? end - 1 : end);
}
