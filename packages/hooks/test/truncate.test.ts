import { describe, expect, it } from "vitest";
import { truncateLargeFields } from "../src/index.js";
import { TRUNCATED_KEY } from "../src/truncate.js";

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe("truncateLargeFields", () => {
  it("leaves a value under the limit as it is (the same object)", () => {
    const value = { a: "x".repeat(100), b: [1, 2, { c: "y" }] };
    const result = truncateLargeFields(value, 1000);
    expect(result.value).toBe(value);
    expect(result.truncated).toEqual([]);
    expect(result.bytes).toBe(bytes(value));
  });

  it("cuts a long string at the limit with a marker saying how much was kept", () => {
    const result = truncateLargeFields({ tool_response: { stdout: "a".repeat(5000) } }, 1000);
    expect(result.truncated).toEqual(["event.tool_response.stdout"]);
    expect(result.value.tool_response.stdout).toBe(
      `${"a".repeat(1000)}…[truncated by evals-hook: kept 1000 of 5000 bytes]`,
    );
    expect(result.bytes).toBe(bytes(result.value));
  });

  it("never splits a multi-byte character", () => {
    for (const char of ["é", "€", "😀"]) {
      const result = truncateLargeFields({ s: char.repeat(1000) }, 101);
      const kept = result.value.s.split("…[truncated")[0] as string;
      expect(kept).toBe(char.repeat(kept.length / char.length));
      expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(101);
      expect(Buffer.byteLength(kept)).toBeGreaterThan(101 - Buffer.byteLength(char));
    }
  });

  it("keeps the first items of an array whose small items add up past the limit", () => {
    const result = truncateLargeFields({ list: Array.from({ length: 1000 }, (_, i) => i) }, 100);
    expect(result.truncated).toEqual(["event.list"]);
    expect(result.value.list.slice(0, 3)).toEqual([0, 1, 2]);
    expect(bytes(result.value.list)).toBeLessThanOrEqual(100);
    expect(result.bytes).toBe(bytes(result.value));
  });

  it("keeps the first members of an object with too many, and says what it dropped", () => {
    const input = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`key${i}`, i]));
    const result = truncateLargeFields({ tool_input: input }, 200);
    expect(result.truncated).toEqual(["event.tool_input"]);
    const kept = result.value.tool_input as Record<string, unknown>;
    expect(kept.key0).toBe(0);
    expect(kept[TRUNCATED_KEY]).toMatch(/^kept \d+ of 500 members \(\d+ bytes\)$/);
    expect(bytes(kept)).toBeLessThanOrEqual(200);
  });

  it("does not drop members of an object just because its cut members are large", () => {
    const result = truncateLargeFields(
      { tool_response: { stdout: "o".repeat(3000), stderr: "e".repeat(3000), interrupted: false } },
      1000,
    );
    expect(result.truncated).toEqual(["event.tool_response.stdout", "event.tool_response.stderr"]);
    expect(Object.keys(result.value.tool_response)).toEqual(["stdout", "stderr", "interrupted"]);
  });

  it("never cuts the root's members away, only their contents", () => {
    const root = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`field${i}`, "v".repeat(50)]));
    const result = truncateLargeFields(root, 100);
    expect(result.truncated).toEqual([]);
    expect(Object.keys(result.value)).toHaveLength(100);
  });

  it("names odd keys with brackets and array items with indexes", () => {
    const result = truncateLargeFields({ "a.b": ["x".repeat(50)], "": { "0": "y".repeat(50) } }, 20);
    expect(result.truncated).toEqual(['event["a.b"][0]', 'event[""]["0"]']);
  });

  it("keeps a __proto__ key an ordinary member", () => {
    const value = JSON.parse(`{"tool_input":{"__proto__":{"x":"${"z".repeat(100)}"}}}`);
    const result = truncateLargeFields(value, 50);
    const input = result.value.tool_input as Record<string, unknown>;
    expect(Object.keys(input)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(input)).toBe(Object.prototype);
    const reparsed = JSON.parse(JSON.stringify(result.value)).tool_input;
    expect(Object.getOwnPropertyDescriptor(reparsed, "__proto__")?.value.x).toMatch(/^z{50}…/);
  });
});
