import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { chooseRunId, isSafeRunId, outputRoot, runDirFor, runIdProblem } from "../src/index.js";

describe("run ids", () => {
  it("accepts letters, digits, '.', '_' and '-' up to 128 characters", () => {
    for (const id of ["a", "run-1", "Run_2.3", "x".repeat(128), "2026-01-01T00.00", ".hidden", "-dash"]) {
      expect(isSafeRunId(id), id).toBe(true);
    }
  });

  it("refuses anything that could name another path", () => {
    for (const id of [
      "",
      ".",
      "..",
      "../x",
      "a/..",
      "a/b",
      "/abs",
      "a\\b",
      "x\0y",
      "é",
      "a b",
      "x".repeat(129),
      "a..b",
    ]) {
      expect(isSafeRunId(id), JSON.stringify(id)).toBe(false);
      expect(runIdProblem(id)).toBeTypeOf("string");
    }
    expect(isSafeRunId(undefined)).toBe(false);
    expect(isSafeRunId(42)).toBe(false);
  });

  it("falls back to a stable safe id and says why", () => {
    const nul = chooseRunId("x\0y", "s");
    expect(nul.id).toMatch(/^invalid-[0-9a-f]{8}$/);
    expect(chooseRunId("x\0y", "s").id).toBe(nul.id);
    expect(chooseRunId("x\0z", "s").id).not.toBe(nul.id);
    expect(nul.problem).toMatch(/may only contain/);
    expect(chooseRunId(undefined, "abc-123")).toEqual({
      id: "session-abc-123",
      problem: "TEST_RUN_ID is not set; captured to session-abc-123 instead",
    });
    expect(chooseRunId("", "../bad").id).toBe("no-run-id");
    expect(chooseRunId("", undefined).id).toBe("no-run-id");
    expect(chooseRunId("good", "s")).toEqual({ id: "good" });
  });
});

describe("output root and run folder", () => {
  it("prefers EVALS_OUTPUT_DIR, then CLAUDE_PROJECT_DIR, then the cwd; relative values against the cwd", () => {
    expect(outputRoot({ EVALS_OUTPUT_DIR: "/a", CLAUDE_PROJECT_DIR: "/b" }, "/c")).toBe("/a");
    expect(outputRoot({ EVALS_OUTPUT_DIR: "", CLAUDE_PROJECT_DIR: "/b" }, "/c")).toBe("/b");
    expect(outputRoot({}, "/c")).toBe("/c");
    expect(outputRoot({ EVALS_OUTPUT_DIR: "out" }, "/c")).toBe(resolve("/c", "out"));
  });

  it("builds <root>/test-output/<id> and throws on an unsafe id", () => {
    expect(runDirFor("r1", { root: "/x" })).toBe(join("/x", "test-output", "r1"));
    expect(() => runDirFor("../../etc", { root: "/x" })).toThrow(
      /Invalid run id "..\/..\/etc": it may only contain/,
    );
    expect(() => runDirFor("..", { root: "/x" })).toThrow(/may not be '.' or contain '..'/);
  });
});
