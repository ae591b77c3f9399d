import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { terminalSafe, terminalSafeIo, writeJsonText } from "../src/terminal-safe.js";

/** What `write` wrote to a stream, through terminalSafeIo or not. */
function written(write: (stream: NodeJS.WritableStream) => void, safe: boolean): string {
  const stdout = new PassThrough();
  const io = { stdout, stderr: new PassThrough() };
  write(safe ? terminalSafeIo(io).stdout : stdout);
  return stdout.read()?.toString() ?? "";
}

describe("terminalSafe", () => {
  it("shows a control character below a space as \\x1b, DEL and C1 as \\u0085, keeps colours", () => {
    expect(terminalSafe("a\x1b]0;t\x07\x1b[31mred\x1b[0m\n\tb\x7f\x85\x9b2J")).toBe(
      "a\\x1b]0;t\\x07\x1b[31mred\x1b[0m\n\tb\\u007f\\u0085\\u009b2J",
    );
  });
});

describe("writeJsonText", () => {
  it("writes JSON text with DEL and the C1 controls as JSON escapes: the same value, terminal-safe", () => {
    for (const value of [{ ascii: "ls \x7f" }, { c1: "é \x85\x9b2J\x7f" }, { none: "é ×" }, ["a\n\x1b"]]) {
      const json = JSON.stringify(value, null, 2);
      for (const safe of [true, false]) {
        const text = written((stream) => writeJsonText(stream, json), safe);
        expect(text).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
        expect(JSON.parse(text)).toEqual(value);
        expect(text).toBe(terminalSafe(json));
      }
    }
  });
});
