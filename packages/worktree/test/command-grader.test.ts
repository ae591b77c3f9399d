import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type EvaluatorResult, EvaluatorResultSchema, type Run } from "@evals/core";
import { afterAll, describe, expect, it } from "vitest";
import { commandScorer, runCommandGrader } from "../src/index.js";
import { isRunning } from "./git-repo.js";

const folder = realpathSync(mkdtempSync(join(tmpdir(), "evals-wt-grader-")));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
writeFileSync(
  join(folder, "check.mjs"),
  [
    "import { existsSync } from 'node:fs';",
    "if (existsSync('fixed.txt')) { console.log('1 test passed'); process.exit(0); }",
    "console.log('running 1 test');",
    "console.error('FAIL add.test.js: expected 3, got 4');",
    "process.exit(3);",
  ].join("\n"),
);

function run(cwd: string): Run {
  return { version: 1, cwd, events: [], agents: [], sources: [], notes: [] } as unknown as Run;
}

describe("runCommandGrader", () => {
  it("a passing command: passed, score 1, output kept as evidence", async () => {
    const result = await runCommandGrader(folder, { command: "echo all good && exit 0", name: "tests" });
    expect(EvaluatorResultSchema.parse(result)).toEqual(result);
    expect(result).toMatchObject({ evaluator: "tests", passed: true, score: 1, violations: [] });
    expect(result.metadata).toMatchObject({ exit_code: 0, timed_out: false, cwd: folder });
    expect(result.evidence[0]?.data).toMatchObject({ stdout: "all good\n" });
  });

  it("a failing command: score 0 and a violation with the exit code and the end of its output", async () => {
    const result = await runCommandGrader(folder, { command: [process.execPath, "check.mjs"] });
    expect(EvaluatorResultSchema.parse(result)).toEqual(result);
    expect(result).toMatchObject({ evaluator: "command", passed: false, score: 0 });
    expect(result.violations).toHaveLength(1);
    const [violation] = result.violations;
    expect(violation).toMatchObject({ rule: "command", type: "exit-code", severity: "error" });
    expect(violation?.message).toContain("exited with 3 (expected 0)");
    expect(violation?.message).toContain("FAIL add.test.js: expected 3, got 4");
    expect(result.evidence[0]?.data).toMatchObject({ stdout: "running 1 test\n" });
  });

  it("judges the worktree's state: the same command passes once the fix is there", async () => {
    writeFileSync(join(folder, "fixed.txt"), "");
    try {
      const result = await runCommandGrader(folder, { command: [process.execPath, "check.mjs"] });
      expect(result.passed).toBe(true);
    } finally {
      rmSync(join(folder, "fixed.txt"));
    }
  });

  it("takes the exit code that means pass, a sub-folder and env", async () => {
    const result = await runCommandGrader(folder, {
      command: 'test "$GREETING" = hi && exit 7',
      expectExitCode: 7,
      env: { GREETING: "hi" },
    });
    expect(result.passed).toBe(true);
    const wrong = await runCommandGrader(folder, { command: "exit 0", expectExitCode: 7 });
    expect(wrong.violations[0]?.message).toContain("exited with 0 (expected 7)");
  });

  it("a command that cannot start is a failed result, not a crash", async () => {
    const result = await runCommandGrader(folder, { command: ["definitely-not-a-program-xyz"] });
    expect(result.passed).toBe(false);
    expect(result.violations[0]).toMatchObject({ type: "not-started" });
    expect(result.violations[0]?.message).toContain("ENOENT");
    const missing = await runCommandGrader(join(folder, "gone"), { command: "true" });
    expect(missing.violations[0]).toMatchObject({ type: "missing-worktree" });
    expect(missing.violations[0]?.message).toContain("inside withTrialWorktree's callback");
  });

  it("a command that hangs is killed with everything it started", async () => {
    const pidFile = join(folder, "grandchild.pid");
    const result = await runCommandGrader(folder, {
      command: `sleep 30 & echo $! > ${pidFile}; wait`,
      // Long enough for the shell to start and write the pid file on a loaded machine.
      timeoutMs: 5_000,
    });
    expect(result.passed).toBe(false);
    expect(result.violations[0]).toMatchObject({ type: "timeout" });
    expect(result.metadata).toMatchObject({ timed_out: true });
    const grandchild = Number(readFileSync(pidFile, "utf8"));
    // SIGKILL is sent before runCommandGrader returns; on a loaded machine the exit may lag a moment.
    await expect.poll(() => isRunning(grandchild), { timeout: 15_000 }).toBe(false);
  });

  it("keeps only the tail of a long output", async () => {
    const result = await runCommandGrader(folder, {
      command: [process.execPath, "-e", "process.stdout.write('x'.repeat(200000) + 'END')"],
      maxOutputBytes: 1000,
    });
    const stdout = stdoutOf(result);
    expect(stdout.length).toBe(1000);
    expect(stdout.endsWith("END")).toBe(true);
    expect(result.metadata.output_truncated).toBe(true);
  });
});

describe("commandScorer", () => {
  it("is a @evals/core Scorer that runs in the run's cwd by default", async () => {
    const scorer = commandScorer({ command: "test -f marker.txt", name: "marker", threshold: 1 });
    expect(scorer).toMatchObject({ name: "marker", threshold: 1 });
    expect((await scorer.score({ run: run(folder) })).passed).toBe(false);
    writeFileSync(join(folder, "marker.txt"), "");
    expect((await scorer.score({ run: run(folder) })).passed).toBe(true);
    expect(existsSync(join(folder, "marker.txt"))).toBe(true);
  });

  it("takes the worktree from the input, or says it has none", async () => {
    const scorer = commandScorer({
      command: "pwd",
      worktree: (input) => (input.case as { dir: string }).dir,
    });
    const result = await scorer.score({ run: run("/nowhere"), case: { dir: folder } });
    expect(result.passed).toBe(true);
    expect(stdoutOf(result).trim()).toBe(folder);
    const none = await commandScorer({ command: "true" }).score({ run: { ...run(folder), cwd: undefined } });
    expect(none.violations[0]?.message).toContain("pass `worktree` to commandScorer");
  });
});

function stdoutOf(result: EvaluatorResult): string {
  return (result.evidence[0]?.data as { stdout?: string } | undefined)?.stdout ?? "";
}
