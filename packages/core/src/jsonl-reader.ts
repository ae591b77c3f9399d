import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
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

export interface JsonlReadOptions<T> {
  /** Validate each line; the yielded value is the schema's output. */
  schema?: z.ZodType<T>;
  /**
   * "throw" (default): the first bad line throws a JsonlLineError.
   * "skip": bad lines are passed to `onBadLine` (or collected in `skipped`) and reading goes on.
   */
  onError?: "throw" | "skip";
  onBadLine?: (error: JsonlLineError) => void;
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
  const input = createReadStream(file, { encoding: "utf8", highWaterMark: 64 * 1024 });
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let lineNumber = 0;
  try {
    for await (const text of lines) {
      lineNumber++;
      if (text.trim() === "") continue;
      const parsed = parseJsonlLine(text, file, lineNumber, options.schema);
      if (parsed.ok) {
        yield { value: parsed.value, line: lineNumber };
        continue;
      }
      if (options.onError === "skip") options.onBadLine?.(parsed.error);
      else throw parsed.error;
    }
  } finally {
    lines.close();
    input.destroy();
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
  const lines = text.split(/\r?\n/);
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? "";
    if (line.trim() === "") continue;
    const parsed = parseJsonlLine(line, source, index + 1, options.schema);
    if (parsed.ok) values.push(parsed.value);
    else if (options.onError === "skip") options.onBadLine?.(parsed.error);
    else throw parsed.error;
  }
  return values;
}

function parseJsonlLine<T>(
  text: string,
  file: string,
  line: number,
  schema: z.ZodType<T> | undefined,
): { ok: true; value: T } | { ok: false; error: JsonlLineError } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: new JsonlLineError(file, line, `invalid JSON: ${(error as Error).message}`) };
  }
  if (!schema) return { ok: true, value: json as T };
  const result = schema.safeParse(json);
  if (result.success) return { ok: true, value: result.data };
  const issue = result.error.issues[0];
  const field = issue && issue.path.length > 0 ? issue.path.map(String).join(".") : undefined;
  return { ok: false, error: new JsonlLineError(file, line, issue?.message ?? "invalid line", field) };
}
