import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { RUN_EXIT, runCommand } from "../src/cli/run-command.js";
import { claudeAvailable } from "../src/index.js";

const claudeBin = resolve(__dirname, "../../../node_modules/.bin/claude");
const findTodos = (path: string) =>
  fileURLToPath(new URL(`../../../examples/find-todos/${path}`, import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "harness-run-command-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs `evals run <args>` and returns its exit code and what it printed. */
async function evalsRun(args: string[]) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (chunk) => (out += chunk));
  stderr.on("data", (chunk) => (err += chunk));
  const code = await runCommand(args, { stdout, stderr });
  return { code, out, err };
}

describe("evals run", () => {
  it("prints its help, and refuses bad usage with exit code 2", async () => {
    const help = await evalsRun(["--help"]);
    expect(help.code).toBe(RUN_EXIT.passed);
    expect(help.out).toContain("Usage: evals run <cases...>");
    expect((await evalsRun([])).code).toBe(RUN_EXIT.usage);
    const trials = await evalsRun(["cases.yaml", "--trials", "0"]);
    expect(trials).toMatchObject({ code: RUN_EXIT.usage });
    expect(trials.err).toContain("--trials must be a positive integer, got 0");
    expect((await evalsRun(["cases.yaml", "--mode", "sometimes"])).err).toContain("--mode must be one of");
    const missing = await evalsRun([join(scratch, "nope.yaml")]);
    expect(missing.code).toBe(RUN_EXIT.usage);
    expect(missing.err).toContain("cannot read the case file");
  });

  it("fails a case whose recording is missing, saying which file (exit code 1)", async () => {
    const file = join(scratch, "lonely.yaml");
    writeFileSync(file, "id: lonely\nprompt: Say hi.\n");
    const run = await evalsRun([file, "--mode", "strict", "--cassettes", join(scratch, "cassettes")]);
    expect(run.code).toBe(RUN_EXIT.failed);
    expect(run.out).toContain("No wire recording for lonely › lonely");
    expect(run.out).toContain("1 case(s), 1 trial(s): 0 passed, 1 failed");
  });

  it.skipIf(!claudeAvailable({ claudeBin }).available)(
    "replays the find-todos example's cases with the real CLI, 2 trials each (exit code 0)",
    async () => {
      const previous = process.env.EVALS_CLAUDE_BIN;
      process.env.EVALS_CLAUDE_BIN = claudeBin;
      process.env.EVALS_OUTPUT_DIR ??= scratch;
      try {
        const run = await evalsRun([
          findTodos("cases/find-todos.yaml"),
          "--cassettes",
          findTodos("cassettes"),
          "--mode",
          "strict",
          "--trials",
          "2",
        ]);
        expect(run.err).toBe("");
        expect(run.out).toContain("2 case(s), 4 trial(s): 2 passed, 0 failed");
        expect(run.out).toContain("replayed");
        expect(run.code).toBe(RUN_EXIT.passed);
      } finally {
        if (previous === undefined) delete process.env.EVALS_CLAUDE_BIN;
        else process.env.EVALS_CLAUDE_BIN = previous;
      }
    },
    240_000,
  );
});
