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

describe("a UTF-8 byte order mark", () => {
  // Windows PowerShell 5 writes one before the text (`Out-File -Encoding utf8`, `Set-Content`).
  const text = '\uFEFF{"a":1}\r\n{"b":"\uFEFF"}\r\n';
  const values = [{ a: 1 }, { b: "\uFEFF" }];

  it("before the first line is not part of it, for every reader of JSONL (one inside a value is kept)", async () => {
    const file = join(scratch(), "bom.jsonl");
    writeFileSync(file, text);
    expect([...readJsonlLinesSync(file)].map((record) => record.value)).toEqual(values);
    expect(await readJsonlFile(file)).toEqual(values);
    expect(parseJsonl(text, "bom.jsonl")).toEqual(values);
  });

  it("is not skipped on a line after the first", () => {
    const file = join(scratch(), "bom-later.jsonl");
    writeFileSync(file, '{"a":1}\n\uFEFF{"b":2}\n');
    expect(() => [...readJsonlLinesSync(file)]).toThrow(`${file}:2: invalid JSON`);
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
    // The lines before it are yielded first.
    const before: number[] = [];
    expect(() => {
      for (const record of readJsonlLinesSync(bad.file)) before.push(record.line);
    }).toThrow(`${bad.file}:2: invalid JSON`);
    expect(before).toEqual([1]);
    const cut: string[] = [];
    const truncated = read('{"a":1}\n{"b":', { onTruncatedLine: (error) => cut.push(error.message) });
    expect(truncated.records().map((record) => record.value)).toEqual([{ a: 1 }]);
    expect(cut).toEqual([expect.stringContaining(`${truncated.file}:2: the last line is cut off`)]);
  });

  it("decodes a character or a CRLF that a read chunk boundary splits", () => {
    const chunk = 1024 * 1024;
    // "é" is two bytes: the padding puts its first byte last in the first chunk.
    const first = `{"a":"${"x".repeat(chunk - 16)}"}\n`;
    const split = `${first}{"b":"é${"x".repeat(chunk - 10)}"}\r\n{"c":"✓"}\r\n\n{"d":4}\n`;
    expect(
      Buffer.from(split)
        .subarray(chunk - 2, chunk + 1)
        .toString(),
    ).toBe('"é');
    const records = read(split).records();
    expect(records.map((record) => record.line)).toEqual([1, 2, 3, 5]);
    expect(records[1]?.value).toEqual({ b: `é${"x".repeat(chunk - 10)}` });
    expect(records[2]?.value).toEqual({ c: "✓" });
    // A CR last in a chunk and its LF first in the next.
    const crlf = `{"a":"${"x".repeat(chunk - 9)}"}\r\n{"b":2}\r\n`;
    expect(Buffer.from(crlf)[chunk - 1]).toBe(0x0d);
    expect(read(crlf).records()).toEqual([
      { value: { a: "x".repeat(chunk - 9) }, line: 1 },
      { value: { b: 2 }, line: 2 },
    ]);
  });

  it("reads every line of a long file of mixed lines as a whole-text split does", () => {
    // Some 9 MB: lines short and long (over a 32 KiB decoded block, some), multi-byte, CRLF, blank.
    const texts = ["", "é", "✓✓", "x".repeat(40), "y".repeat(5000)];
    const lines: string[] = [];
    for (let i = 0; i < 8000; i++) {
      const text =
        i % 500 === 0 ? "z".repeat(70_000) : i % 211 === 0 ? "wé".repeat(20_000) : texts[(i * 7) % 5];
      lines.push(i % 9 === 0 ? "" : `{"i":${i},"t":"${text}"}${i % 4 === 0 ? "\r" : ""}`);
    }
    const expected = lines.flatMap((line, i) =>
      line === "" ? [] : [{ value: JSON.parse(line.replace(/\r$/, "")), line: i + 1 }],
    );
    expect(read(`${lines.join("\n")}\n`).records()).toEqual(expected);
  });

  it("measures a line's limit in bytes, within a read chunk too", () => {
    const line = `{"a":"${"é".repeat(400)}"}`; // 808 bytes, 408 characters
    const { file, records } = read(`{"a":1}\n\n${line}\n{"b":2}\n`, { maxLineBytes: 600 });
    expect(() => records()).toThrow(`${file}:3: the line is longer than`);
    const fits = read(`{"a":1}\n${line}\r\n${line}\n`, { maxLineBytes: 809 });
    expect(fits.records().map((record) => record.line)).toEqual([1, 2, 3]);
    const over = read(`{"a":1}\n${line}\r\n${line}\n`, { maxLineBytes: 808 });
    expect(() => over.records()).toThrow(`${over.file}:2: the line is longer than`);
  });

  it("refuses a line longer than its limit before holding it, naming file, line and limit", () => {
    const { file, records } = read(`{"a":1}\n{"b":"${"z".repeat(2 * 1024 * 1024)}"}\n`, {
      maxLineBytes: 1024 * 1024,
    });
    expect(() => records()).toThrow(`${file}:2: the line is longer than 1 MiB`);
  });
});
