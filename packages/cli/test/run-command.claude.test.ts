import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { claudeAvailable } from "@evals/claude-code";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/exit-codes.js";
import { evalsCommand, runInProcess } from "./command-io.js";

const claudeBin = resolve(__dirname, "../../../node_modules/.bin/claude");
const findTodos = (path: string) =>
  fileURLToPath(new URL(`../../../examples/find-todos/${path}`, import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "harness-run-command-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs `evals run <args>` and returns its exit code and what it printed. */
const evalsRun = (args: string[], options: { record?: boolean } = {}) =>
  runInProcess(
    (argv, io) =>
      evalsCommand(options.record ? "record" : "run")([...argv, "--out", join(scratch, "results")], io),
    args,
  );

describe("evals run", () => {
  it("prints its help, and refuses bad usage with exit code 2", async () => {
    const help = await evalsRun(["--help"]);
    expect(help.code).toBe(EXIT.passed);
    expect(help.out).toContain("Usage: evals run <cases...>");
    expect((await evalsRun([])).code).toBe(EXIT.badInput);
    const trials = await evalsRun(["cases.yaml", "--trials", "0"]);
    expect(trials).toMatchObject({ code: EXIT.badInput });
    expect(trials.err).toContain(`--trials must be a whole number from 1 to 1000, got "0"`);
    expect((await evalsRun(["cases.yaml", "--mode", "sometimes"])).err).toContain("--mode must be one of");
    const missing = await evalsRun([join(scratch, "nope.yaml")]);
    expect(missing.code).toBe(EXIT.badInput);
    expect(missing.err).toContain("cannot read the case file");
  });

  it("refuses a case whose recording is missing, saying which file and the command that records it (exit code 2)", async () => {
    const file = join(scratch, "lonely.yaml");
    writeFileSync(file, "id: lonely\nprompt: Say hi.\n");
    const run = await evalsRun([file, "--mode", "strict", "--cassettes", join(scratch, "cassettes")]);
    expect(run.code).toBe(EXIT.badInput);
    // Without --suite, the recording is keyed by the case id alone.
    expect(run.err).toMatch(/no recording for case "lonely": expected .*lonely\.[0-9a-f]+\.recording\.json/);
    expect(run.err).toContain("npx evals record");
    expect(run.err).not.toContain("VCR_MODE");
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
          // The example's recordings were made under its describeCases suite.
          "--suite",
          "find-todos",
          "--mode",
          "strict",
          "--trials",
          "2",
        ]);
        expect(run.err).toBe("");
        expect(run.out).toContain("2 case(s), 4 trial(s): 2 passed, 0 failed");
        expect(run.out).toContain("replayed");
        expect(run.code).toBe(EXIT.passed);
      } finally {
        if (previous === undefined) delete process.env.EVALS_CLAUDE_BIN;
        else process.env.EVALS_CLAUDE_BIN = previous;
      }
    },
    240_000,
  );

  it.skipIf(!claudeAvailable({ claudeBin }).available)(
    "evals record records a YAML case with a fixture from --model's scripted model; evals run replays it, 3 trials",
    async () => {
      const suite = join(scratch, "notes-suite");
      mkdirSync(join(suite, "fixture", "notes"), { recursive: true });
      writeFileSync(join(suite, "fixture", "notes", "a.md"), "a\n");
      writeFileSync(join(suite, "fixture", "notes", "b.md"), "b\n");
      const caseFile = join(suite, "notes.yaml");
      writeFileSync(
        caseFile,
        [
          "id: list-notes",
          "prompt: Which notes are there?",
          "agent:",
          "  fixture: fixture",
          "  allowedTools: [Bash]",
          "behavior:",
          "  mustUseTools: [Bash]",
          "  expectedResponse:",
          "    contains: [a.md, b.md]",
          "",
        ].join("\n"),
      );
      const cassettes = join(suite, "cassettes");
      const previous = process.env.EVALS_CLAUDE_BIN;
      process.env.EVALS_CLAUDE_BIN = claudeBin;
      process.env.EVALS_OUTPUT_DIR ??= scratch;
      try {
        const noModel = await evalsRun([caseFile, "--cassettes", cassettes], { record: true });
        expect(noModel.code, noModel.out + noModel.err).not.toBe(EXIT.passed);
        expect(noModel.out + noModel.err).toContain("scripted model");

        const models = fileURLToPath(new URL("./__fixtures__/run-command/models.mjs", import.meta.url));
        const recorded = await evalsRun([caseFile, "--cassettes", cassettes, "--model", models], {
          record: true,
        });
        expect(recorded.err).toBe("");
        expect(recorded.out).toContain("1 case(s), 1 trial(s): 1 passed, 0 failed");
        expect(readdirSync(cassettes).filter((file) => file.endsWith(".recording.json"))).toHaveLength(1);

        const replayed = await evalsRun([
          caseFile,
          "--cassettes",
          cassettes,
          "--mode",
          "strict",
          "--trials",
          "3",
        ]);
        expect(replayed.err).toBe("");
        expect(replayed.out).toContain("1 case(s), 3 trial(s): 1 passed, 0 failed");
        expect(replayed.out).toMatch(/Reports: \S*latest\.json, \S*junit\.xml, \S*report\.html/);
        expect(existsSync(join(scratch, "results", "report.html"))).toBe(true);
        expect(replayed.code).toBe(EXIT.passed);
      } finally {
        if (previous === undefined) delete process.env.EVALS_CLAUDE_BIN;
        else process.env.EVALS_CLAUDE_BIN = previous;
      }
    },
    240_000,
  );

  it("refuses a --model module that gives no scripted model", async () => {
    const bad = join(scratch, "bad-model.mjs");
    writeFileSync(bad, "export default 42;\n");
    const run = await evalsRun(["cases.yaml", "--model", bad], { record: true });
    expect(run.code).toBe(EXIT.badInput);
    expect(run.err).toContain("its default export must be a function");
    expect((await evalsRun(["cases.yaml", "--model", join(scratch, "none.mjs")])).err).toContain(
      "no such file",
    );
  });
});
