import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { jsonPieces } from "../src/json-in-pieces.js";

const pieces = (value: unknown, chunkSize?: number, indent: 0 | 2 = 2) => [
  ...jsonPieces(value, { indent, ...(chunkSize ? { chunkSize } : {}) }),
];

describe("jsonPieces", () => {
  const tricky = {
    a: [1, "two", null, undefined, () => 1, { nested: [[], {}, [{ deep: true }]] }],
    skipped: undefined,
    fn: () => 1,
    text: 'line one\nline "two"\t\u2028',
    numbers: [0, -1.5, 1e21, Number.NaN, Number.POSITIVE_INFINITY],
    date: new Date("2026-11-23T18:00:00.000Z"),
    withToJSON: { toJSON: () => ({ shown: ["as", { json: 1 }] }) },
    empty: { list: [], object: {} },
  };

  it("writes what JSON.stringify(value, null, 2) writes, or JSON.stringify(value) with indent 0", () => {
    for (const value of [tricky, [], {}, "text", 3, null, [tricky, [tricky]]]) {
      expect(pieces(value).join("")).toBe(JSON.stringify(value, null, 2));
      expect(pieces(value, 64, 0).join("")).toBe(JSON.stringify(value));
    }
  });

  it("writes a real run's evaluation the same, in pieces no longer than the chunk and a leaf", () => {
    const stream = readFileSync(
      new URL("../../../fixtures/claude-code-2.1.330/multi-tool/stream.jsonl", import.meta.url),
      "utf8",
    )
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as unknown);
    const written = pieces(stream, 1024);
    expect(written.join("")).toBe(JSON.stringify(stream, null, 2));
    expect(pieces(stream, 1024, 0).join("")).toBe(JSON.stringify(stream));
    expect(written.length).toBeGreaterThan(3);
    const longestLeaf = Math.max(
      ...JSON.stringify(stream)
        .match(/"(?:[^"\\]|\\.)*"/g)!
        .map((leaf) => leaf.length),
    );
    for (const piece of written) expect(piece.length).toBeLessThan(1024 + longestLeaf + 64);
  });

  it("writes a long array met twice (a verdict's violations are its result's) in pieces of about a chunk", () => {
    const items = Array.from({ length: 20_000 }, (_, n) => ({
      rule: "approval-gate",
      message: `Bash "npm test -- ${n}" ran without asking`,
      pointer: { event_index: n, tool_use_id: `toolu_${n}` },
      ...(n === 12_345 ? { evidence: "x".repeat(5000) } : {}),
    }));
    const report = { verdict: { violations: items }, results: [{ violations: items }] };
    expect(pieces(report, 4096, 2).join("")).toBe(JSON.stringify(report, null, 2));
    const written = pieces(report, 4096, 0);
    expect(written.join("")).toBe(JSON.stringify(report));
    // A piece is about a chunk: at most twice one, or one with the one long item in it.
    const longItem = JSON.stringify(items[12_345]).length;
    for (const piece of written) expect(piece.length).toBeLessThan(2 * 4096 + longItem);
    expect(written.length).toBeGreaterThan(JSON.stringify(report).length / (2 * 4096));
  });
});
