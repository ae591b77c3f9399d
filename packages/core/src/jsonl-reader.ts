import { closeSync, createReadStream, fstatSync, openSync, readSync } from "node:fs";
import type { z } from "zod";

/** A JSONL line that could not be read: which file, which line, which field, and why. */
export class JsonlLineError extends Error {
  override readonly name = "JsonlLineError";
  constructor(
    readonly file: string,
    readonly line: number,
    readonly reason: string,
    /** The dotted path of the offending field, when a schema rejected the line. */
    readonly field?: string,
  ) {
    super(`${file}:${line}${field ? ` (field ${field})` : ""}: ${reason}`);
  }
}

/**
 * The longest line a stored run's JSONL may hold. A JSON string cannot be longer than V8's 512 MiB,
 * and parsing a line costs a few times its size, so a longer line is refused as bad input before it
 * is held in memory (a tool output that size is not something a rule reads).
 */
export const MAX_JSONL_LINE_BYTES = 256 * 1024 * 1024;

/**
 * The text of a file's first line without the UTF-8 byte order mark some Windows tools write before
 * it (PowerShell 5's `Out-File -Encoding utf8`): JSON.parse refuses it as an invisible "token".
 */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** The error for a line longer than the limit: file, line, size, and how to proceed. */
export function lineTooLongError(file: string, line: number, limit: number): JsonlLineError {
  const mib = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MiB`;
  return new JsonlLineError(
    file,
    line,
    `the line is longer than ${mib(limit)}, the most one line of a stored run may hold; cut the oversized value out of that line (for example a tool output: jq -c 'walk(if type == "string" and length > 1000000 then .[0:1000000] else . end)' ${file}) and read it again`,
  );
}

/**
 * Every line of a file (blank ones too, without their "\n" or "\r\n"), streamed in bounded memory:
 * a line longer than `maxLineBytes` throws a JsonlLineError naming it before it is held.
 */
export async function* readTextLines(
  file: string,
  maxLineBytes = MAX_JSONL_LINE_BYTES,
): AsyncGenerator<string> {
  const input = createReadStream(file, { highWaterMark: 64 * 1024 });
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let line = 0;
  const take = (piece: Buffer): string => {
    const bytes = pendingBytes > 0 ? Buffer.concat([...pending, piece]) : piece;
    pending = [];
    pendingBytes = 0;
    line++;
    const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
    const text = bytes.toString("utf8", 0, end);
    return line === 1 ? withoutBom(text) : text;
  };
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      let start = 0;
      for (let newline = chunk.indexOf(0x0a); newline >= 0; newline = chunk.indexOf(0x0a, start)) {
        if (pendingBytes + newline - start > maxLineBytes)
          throw lineTooLongError(file, line + 1, maxLineBytes);
        yield take(chunk.subarray(start, newline));
        start = newline + 1;
      }
      if (start < chunk.length) {
        pendingBytes += chunk.length - start;
        if (pendingBytes > maxLineBytes) throw lineTooLongError(file, line + 1, maxLineBytes);
        pending.push(Buffer.from(chunk.subarray(start)));
      }
    }
    if (pendingBytes > 0) yield take(Buffer.alloc(0));
  } finally {
    input.destroy();
  }
}

export interface JsonlReadOptions<T> {
  /** Validate each line; the yielded value is the schema's output. */
  schema?: z.ZodType<T>;
  /**
   * "throw" (default): the first bad line throws a JsonlLineError.
   * "skip": bad lines are passed to `onBadLine` (or collected in `skipped`) and reading goes on.
   */
  onError?: "throw" | "skip";
  onBadLine?: (error: JsonlLineError) => void;
  /**
   * The last line is not valid JSON and the file does not end with a newline: the writer was killed
   * mid-line. That line is left out (whatever `onError` says) so the rest of the file stays usable,
   * and reported here; without a handler, as a process warning naming the file and line.
   */
  onTruncatedLine?: (error: JsonlLineError) => void;
}

/** Reports a truncated last line: to the caller's handler, else as a process warning. */
export function reportTruncated(
  error: JsonlLineError,
  options: Pick<JsonlReadOptions<unknown>, "onTruncatedLine">,
): void {
  if (options.onTruncatedLine) options.onTruncatedLine(error);
  else process.emitWarning(error.message, "JsonlTruncatedLine");
}

export function truncatedLineError(file: string, line: number): JsonlLineError {
  return new JsonlLineError(
    file,
    line,
    "the last line is cut off (the writer was stopped mid-line); it was left out and the lines before it were read",
  );
}

/** Whether the file's last byte is a newline (a complete last line). */
export function endsWithNewline(file: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    const size = fstatSync(fd).size;
    if (size === 0) return true;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] === 0x0a;
  } catch {
    return true;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export interface JsonlRecord<T> {
  value: T;
  /** 1-based line number in the file. */
  line: number;
}

/**
 * Streams a JSONL file line by line in constant memory. Blank lines are ignored. Each yielded
 * record carries its line number so callers can point at it.
 */
export async function* readJsonl<T = unknown>(
  file: string,
  options: JsonlReadOptions<T> = {},
): AsyncGenerator<JsonlRecord<T>> {
  const lines = readTextLines(file);
  let lineNumber = 0;
  // A line that is not JSON waits until we know whether it is the last one (maybe cut off).
  let unparsable: JsonlLineError | undefined;
  const fail = (error: JsonlLineError) => {
    if (options.onError === "skip") options.onBadLine?.(error);
    else throw error;
  };
  try {
    for await (const text of lines) {
      lineNumber++;
      if (text.trim() === "") continue;
      if (unparsable) {
        fail(unparsable);
        unparsable = undefined;
      }
      const parsed = parseJsonlLine(text, file, lineNumber, options.schema);
      if (parsed.ok) {
        yield { value: parsed.value, line: lineNumber };
        continue;
      }
      if (parsed.notJson) unparsable = parsed.error;
      else fail(parsed.error);
    }
    if (unparsable) {
      if (endsWithNewline(file)) fail(unparsable);
      else reportTruncated(truncatedLineError(file, unparsable.line), options as JsonlReadOptions<unknown>);
    }
  } finally {
    await lines.return(undefined);
  }
}

/** Reads a whole JSONL file into an array (use readJsonl for large files). */
export async function readJsonlFile<T = unknown>(
  file: string,
  options: JsonlReadOptions<T> = {},
): Promise<T[]> {
  const values: T[] = [];
  for await (const record of readJsonl(file, options)) values.push(record.value);
  return values;
}

/** Parses JSONL text already in memory, with the same errors as readJsonl. */
export function parseJsonl<T = unknown>(
  text: string,
  source: string,
  options: JsonlReadOptions<T> = {},
): T[] {
  const values: T[] = [];
  const lines = withoutBom(text).split(/\r?\n/);
  const last = lines.findLastIndex((line) => line.trim() !== "");
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? "";
    if (line.trim() === "") continue;
    const parsed = parseJsonlLine(line, source, index + 1, options.schema);
    if (parsed.ok) values.push(parsed.value);
    else if (parsed.notJson && index === last && !/\n\s*$/.test(text)) {
      reportTruncated(truncatedLineError(source, index + 1), options as JsonlReadOptions<unknown>);
    } else if (options.onError === "skip") options.onBadLine?.(parsed.error);
    else throw parsed.error;
  }
  return values;
}

function parseJsonlLine<T>(
  text: string,
  file: string,
  line: number,
  schema: z.ZodType<T> | undefined,
): { ok: true; value: T } | { ok: false; error: JsonlLineError; notJson?: boolean } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      error: new JsonlLineError(file, line, `invalid JSON: ${(error as Error).message}`),
      notJson: true,
    };
  }
  if (!schema) return { ok: true, value: json as T };
  const result = schema.safeParse(json);
  if (result.success) return { ok: true, value: result.data };
  const issue = result.error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.map(String).join(".") : undefined;
  return { ok: false, error: new JsonlLineError(file, line, issue?.message ?? "invalid line", field) };
}
