import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import {
  assertSafeRunId,
  generateTestId,
  isSafeRunId,
  MAX_RUN_ID_LENGTH,
  WorktreeError,
} from "../src/index.js";

const execFileAsync = promisify(execFile);

describe("isSafeRunId", () => {
  it.each([
    "a",
    "run-1",
    "file-search-20260114T093012345Z-9f2c4a1be07d",
    "A.b_c-D",
    "x".repeat(MAX_RUN_ID_LENGTH),
  ])("accepts %j", (id) => {
    expect(isSafeRunId(id)).toBe(true);
  });

  it.each([
    ["", "empty"],
    [".", "dot"],
    ["..", "parent"],
    ["../x", "traversal"],
    ["a..b", "double dot inside"],
    ["/abs", "absolute"],
    ["a/b", "slash"],
    ["a\\b", "backslash"],
    ["a\0b", "NUL"],
    ["a b", "space"],
    ["a\nb", "newline"],
    ["ü", "non-ASCII"],
    ["x".repeat(MAX_RUN_ID_LENGTH + 1), "too long"],
  ])("rejects %j (%s)", (id) => {
    expect(isSafeRunId(id)).toBe(false);
    expect(() => assertSafeRunId(id)).toThrow(WorktreeError);
  });

  it("rejects values that are not strings", () => {
    expect(isSafeRunId(undefined)).toBe(false);
    expect(isSafeRunId(42)).toBe(false);
  });

  it("says why an id is unsafe and how to get a safe one", () => {
    expect(() => assertSafeRunId("../etc", "test id")).toThrow(
      /Unsafe test id "..\/etc": it contains "\/".*generateTestId/,
    );
    expect(() => assertSafeRunId("a..b")).toThrow(
      expect.objectContaining({ code: "UNSAFE_ID", message: expect.stringContaining('contains ".."') }),
    );
  });
});

describe("generateTestId", () => {
  it("keeps a readable slug of the name, then the UTC time, then randomness", () => {
    expect(generateTestId("File Search")).toMatch(/^file-search-\d{8}T\d{9}Z-[0-9a-f]{12}$/);
  });

  it.each([
    "",
    "../../etc/passwd",
    "..",
    "/abs/path",
    "a\0b",
    "naïve café ✓",
    "中文",
    "x".repeat(1_000),
    "-leading and trailing-",
  ])("is always a safe run id, whatever the name (%j)", (name) => {
    const id = generateTestId(name);
    expect(isSafeRunId(id)).toBe(true);
    expect(id.length).toBeLessThanOrEqual(MAX_RUN_ID_LENGTH);
    expect(id).not.toMatch(/^[-_.]/);
  });

  it("never repeats within a process", () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => generateTestId("same")));
    expect(ids.size).toBe(10_000);
  });

  it("never repeats across processes started at the same moment", async () => {
    const script =
      "import('./dist/index.js').then(m => console.log(Array.from({length: 500}, () => m.generateTestId('same')).join('\\n')))";
    const run = async () =>
      (
        await execFileAsync(process.execPath, ["--input-type=module", "-e", script], {
          cwd: new URL("..", import.meta.url),
          encoding: "utf8",
        })
      ).stdout;
    const outputs = await Promise.all([run(), run(), run(), run()]);
    const ids = outputs.flatMap((out) => out.trim().split("\n"));
    expect(ids).toHaveLength(2_000);
    expect(new Set(ids).size).toBe(2_000);
  });
});
