import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import {
  assertRunId,
  isSafeRunId,
  MAX_RUN_ID_LENGTH,
  newRunId,
  outputRoot,
  RunIdError,
  runFolderPath,
  runIdProblem,
  writeRunFolder,
} from "../src/index.js";

const execFileAsync = promisify(execFile);

describe("the run-id rule", () => {
  it.each([
    "a",
    "run-1",
    "Run_2.3",
    "file-search-20260114T093012345Z-9f2c4a1be07d",
    "2026-01-01T00.00",
    ".hidden",
    "-dash",
    "x".repeat(MAX_RUN_ID_LENGTH),
  ])("accepts %j", (id) => {
    expect(isSafeRunId(id)).toBe(true);
    expect(runIdProblem(id)).toBeUndefined();
    expect(() => assertRunId(id)).not.toThrow();
  });

  it.each([
    ["", "is empty"],
    [".", 'is "."'],
    ["..", 'contains ".."'],
    ["../x", 'contains "/"'],
    ["a/..", 'contains "/"'],
    ["a..b", 'contains ".."'],
    ["/abs", 'contains "/"'],
    ["a/b", 'contains "/"'],
    ["a\\b", 'contains "\\\\"'],
    ["a\0b", 'contains "\\u0000"'],
    ["a b", 'contains " "'],
    ["é", 'contains "é"'],
    ["x".repeat(MAX_RUN_ID_LENGTH + 1), "has 129 characters (at most 128)"],
  ])("refuses %j, saying what is wrong", (id, problem) => {
    expect(isSafeRunId(id)).toBe(false);
    expect(runIdProblem(id)).toContain(problem);
    expect(() => assertRunId(id, "test id")).toThrow(RunIdError);
    expect(() => assertRunId(id, "test id")).toThrow(`it ${runIdProblem(id)}`);
  });

  it("names the id and how to make a good one", () => {
    expect(() => assertRunId("../etc")).toThrow(
      /^Invalid run id "..\/etc": it contains "\/" \(only letters, digits.*newRunId\(label\) makes one\.$/,
    );
    expect(() => assertRunId(undefined)).toThrow(/Invalid run id undefined: it is not set/);
    expect(() => assertRunId(42)).toThrow(/it is a number, not a string/);
    expect(isSafeRunId(undefined)).toBe(false);
    expect(isSafeRunId(42)).toBe(false);
  });
});

describe("newRunId", () => {
  it("keeps a readable slug of the label, then the UTC time, then randomness", () => {
    expect(newRunId("File Search")).toMatch(/^file-search-\d{8}T\d{9}Z-[0-9a-f]{12}$/);
    expect(newRunId()).toMatch(/^run-/);
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
  ])("is always a safe run id, whatever the label (%j)", (label) => {
    const id = newRunId(label);
    expect(isSafeRunId(id)).toBe(true);
    expect(id.length).toBeLessThanOrEqual(MAX_RUN_ID_LENGTH);
    expect(id).not.toMatch(/^[-_.]/);
  });

  it("keeps a trial's label whole (suite, case id, trial and shard: what `evals grade` looks runs up by)", () => {
    const label = `${"s".repeat(30)}-${"c".repeat(40)}-t12-s3of4`;
    expect(newRunId(label).startsWith(`${label}-`)).toBe(true);
  });

  it("never repeats within a process", () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newRunId("same")));
    expect(ids.size).toBe(10_000);
  });

  it("never repeats across processes started at the same moment", async () => {
    const script =
      "import('./dist/index.js').then(m => console.log(Array.from({length: 500}, () => m.newRunId('same')).join('\\n')))";
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

describe("the run folder's path", () => {
  it("prefers EVALS_OUTPUT_DIR, then CLAUDE_PROJECT_DIR, then the cwd; relative values against the cwd", () => {
    expect(outputRoot({ EVALS_OUTPUT_DIR: "/a", CLAUDE_PROJECT_DIR: "/b" }, "/c")).toBe("/a");
    expect(outputRoot({ EVALS_OUTPUT_DIR: "", CLAUDE_PROJECT_DIR: "/b" }, "/c")).toBe("/b");
    expect(outputRoot({}, "/c")).toBe("/c");
    expect(outputRoot({ EVALS_OUTPUT_DIR: "out" }, "/c")).toBe(resolve("/c", "out"));
  });

  it("is <root>/test-output/<id>, and refuses an id that could name another path", () => {
    expect(runFolderPath("r1", "/x")).toBe(join("/x", "test-output", "r1"));
    expect(() => runFolderPath("../../etc", "/x")).toThrow(/Invalid run id "..\/..\/etc": it contains "\/"/);
    expect(() => runFolderPath("..", "/x")).toThrow(RunIdError);
  });

  it("writeRunFolder refuses an unsafe run id before writing anything", () => {
    const dir = mkdtempSync(join(tmpdir(), "core-run-id-"));
    try {
      expect(() => writeRunFolder(dir, "a/../../b", { agent: { model: "m" } })).toThrow(
        /Invalid run id "a\/..\/..\/b"/,
      );
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
