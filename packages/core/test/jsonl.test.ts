import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  appendJsonlLine,
  CapturedEventSchema,
  JsonlAppender,
  JsonlLineError,
  parseJsonl,
  readJsonl,
  readJsonlFile,
  readJsonlLinesSync,
} from "../src/index.js";

const scratch = () => mkdtempSync(join(tmpdir(), "evals-core-"));

describe("readJsonl", () => {
  it("streams values with their line numbers and ignores blank lines", async () => {
    const file = join(scratch(), "a.jsonl");
    writeFileSync(file, '{"a":1}\n\n{"a":2}\r\n');
    const records = [];
    for await (const record of readJsonl(file)) records.push(record);
    expect(records).toEqual([
      { value: { a: 1 }, line: 1 },
      { value: { a: 2 }, line: 3 },
    ]);
  });

  it("names file and line of invalid JSON", async () => {
    const file = join(scratch(), "bad.jsonl");
    writeFileSync(file, '{"a":1}\n{oops\n');
    await expect(readJsonlFile(file)).rejects.toThrow(`${file}:2: invalid JSON`);
  });

  it("names the field a schema rejects", async () => {
    const file = join(scratch(), "events.jsonl");
    writeFileSync(
      file,
      `${JSON.stringify({ version: 1, captured_at: "t", run_id: "r", seq: "x", event: {} })}\n`,
    );
    const error = await readJsonlFile(file, { schema: CapturedEventSchema }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JsonlLineError);
    expect(error).toMatchObject({ file, line: 1, field: "seq" });
  });

  it("skips and reports bad lines when asked", async () => {
    const file = join(scratch(), "mixed.jsonl");
    writeFileSync(file, '{"n":1}\nnot json\n{"n":"two"}\n{"n":3}\n');
    const bad: JsonlLineError[] = [];
    const values = await readJsonlFile(file, {
      schema: z.object({ n: z.number() }),
      onError: "skip",
      onBadLine: (error) => bad.push(error),
    });
    expect(values).toEqual([{ n: 1 }, { n: 3 }]);
    expect(bad.map((error) => [error.line, error.field])).toEqual([
      [2, undefined],
      [3, "n"],
    ]);
  });

  it("parses in-memory text with the same errors", () => {
    expect(() => parseJsonl('{"a":1}\n[\n{"b":2}\n', "mem.jsonl")).toThrow("mem.jsonl:2");
  });
});

describe("appending", () => {
  it("writes one line per value", () => {
    const file = join(scratch(), "nested", "out.jsonl");
    appendJsonlLine(file, { a: 1 });
    const appender = new JsonlAppender(file);
    appender.append({ b: "x\ny" });
    appender.close();
    expect(readFileSync(file, "utf8")).toBe('{"a":1}\n{"b":"x\\ny"}\n');
  });

  it("never tears a line when processes append concurrently", async () => {
    const dir = scratch();
    const file = join(dir, "shared.jsonl");
    const script = join(dir, "writer.mjs");
    const appender = new URL("../dist/index.js", import.meta.url).href;
    writeFileSync(
      script,
      `import { appendJsonlLine } from ${JSON.stringify(appender)};
       const [writer, count] = process.argv.slice(2);
       const pad = "x".repeat(5000);
       for (let i = 0; i < Number(count); i++) appendJsonlLine(${JSON.stringify(file)}, { writer, i, pad });`,
    );
    const run = promisify(execFile);
    await Promise.all(Array.from({ length: 8 }, (_, w) => run(process.execPath, [script, String(w), "200"])));
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(1600);
    const seen = new Set(
      lines.map((line) => JSON.parse(line)).map((v: { writer: string; i: number }) => `${v.writer}:${v.i}`),
    );
    expect(seen.size).toBe(1600);
  });
});

describe("readJsonlLinesSync", () => {
  const dir = mkdtempSync(join(tmpdir(), "evals-jsonl-lines-"));
  const read = (text: string, options: Parameters<typeof readJsonlLinesSync>[1] = {}) => {
    const file = join(dir, `lines-${Math.random().toString(36).slice(2)}.jsonl`);
    writeFileSync(file, text);
    return { file, records: () => [...readJsonlLinesSync(file, options)] };
  };

  it("yields each line's value with its number, over lines that cross its read chunks, CRLF or not", () => {
    const long = "y".repeat(3 * 1024 * 1024);
    const { records } = read(`{"a":1}\r\n\n{"b":"${long}"}\n{"c":3}`);
    const values = records();
    expect(values.map((record) => record.line)).toEqual([1, 3, 4]);
    expect((values[1]?.value as { b: string } | undefined)?.b).toHaveLength(long.length);
    expect(values[2]?.value).toEqual({ c: 3 });
  });

  it("names file and line of invalid JSON, and leaves out a cut-off last line with a report", () => {
    const bad = read('{"a":1}\n{oops}\n{"b":2}\n');
    expect(() => bad.records()).toThrow(`${bad.file}:2: invalid JSON`);
    const cut: string[] = [];
    const truncated = read('{"a":1}\n{"b":', { onTruncatedLine: (error) => cut.push(error.message) });
    expect(truncated.records().map((record) => record.value)).toEqual([{ a: 1 }]);
    expect(cut).toEqual([expect.stringContaining(`${truncated.file}:2: the last line is cut off`)]);
  });

  it("refuses a line longer than its limit before holding it, naming file, line and limit", () => {
    const { file, records } = read(`{"a":1}\n{"b":"${"z".repeat(2 * 1024 * 1024)}"}\n`, {
      maxLineBytes: 1024 * 1024,
    });
    expect(() => records()).toThrow(`${file}:2: the line is longer than 1 MiB`);
  });
});
