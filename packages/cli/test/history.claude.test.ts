import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { claudeAvailable } from "@evals/claude-code";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/exit-codes.js";

const claudeBin = resolve(__dirname, "../../../node_modules/.bin/claude");
const cliJs = resolve(__dirname, "../dist/cli.js");
const findTodos = (path: string) =>
  fileURLToPath(new URL(`../../../examples/find-todos/${path}`, import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "harness-history-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The built `evals` binary, run in the scratch folder. */
function evalsBinary(args: string[]) {
  const result = spawnSync(process.execPath, [cliJs, ...args], {
    cwd: scratch,
    encoding: "utf8",
    timeout: 300_000,
    env: { ...process.env, EVALS_CLAUDE_BIN: claudeBin, EVALS_OUTPUT_DIR: scratch, FORCE_COLOR: "0" },
  });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

/** `evals run` of the find-todos example's two cases, replayed strictly from its recordings. */
const replayFindTodos = (db: string, out = "results") =>
  evalsBinary([
    ...["run", findTodos("cases/find-todos.yaml"), "--cassettes", findTodos("cassettes")],
    // The example's recordings were made under its describeCases suite.
    ...["--suite", "find-todos", "--mode", "strict", "--out", out, "--db", db],
  ]);

describe.skipIf(!claudeAvailable({ claudeBin }).available)("every run remembered, on the real CLI", () => {
  const db = join(scratch, "db");

  it("evals run twice (replayed), then evals history shows both runs of each case", () => {
    for (let run = 1; run <= 2; run++) {
      const result = replayFindTodos(db);
      expect(result.err).toBe("");
      expect(result.code, result.out).toBe(EXIT.passed);
    }
    const shown = evalsBinary(["history", "--db", db]);
    expect(shown.err).toBe("");
    expect(shown.code).toBe(EXIT.passed);
    const lines = shown.out.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^case +runs +pass rate +95% band +runs, oldest first$/);
    expect(lines).toHaveLength(3);
    for (const line of lines.slice(1)) expect(line).toMatch(/^find-todos › \S+ +2 +100% +34\.2%–100% +██$/);

    const json = JSON.parse(evalsBinary(["history", "--db", db, "--json"]).out);
    expect(json.cases).toHaveLength(2);
    for (const c of json.cases) {
      expect(c.runs.map((r: { status: string }) => r.status)).toEqual(["passed", "passed"]);
      expect(c.runs[0].run_id).not.toBe(c.runs[1].run_id);
    }
    // Each run's history file is already in the database: importing them adds nothing.
    const month = readdirSync(join(scratch, "results", "history"))[0]!;
    const files = readdirSync(join(scratch, "results", "history", month)).map((f) =>
      join(scratch, "results", "history", month, f),
    );
    expect(files).toHaveLength(2);
    const imported = evalsBinary(["history", "import", ...files, "--db", db]);
    expect(imported.out).toBe(`0 run(s) added to ${db}, 2 already there\n`);
    expect(evalsBinary(["history", "--db", db, "--since", "2999-01-01"]).out).toBe(
      "No recorded runs match.\n",
    );
  }, 600_000);

  it("a database that cannot be opened fails nothing: the verdict and reports as usual, one warning", () => {
    const corrupt = join(scratch, "corrupt-db");
    mkdirSync(corrupt, { recursive: true });
    writeFileSync(join(corrupt, "PG_VERSION"), "not a database\n");
    const result = replayFindTodos(corrupt, "results-corrupt");
    expect(result.code, result.out).toBe(EXIT.passed);
    expect(existsSync(join(scratch, "results-corrupt", "latest.json"))).toBe(true);
    const warnings = result.err.split("\n").filter((line) => line.includes("warning"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`this run was not recorded in the results database ${corrupt}`);
    expect(warnings[0]).toContain("evals history import results-corrupt/history/");
  }, 300_000);

  it("a sharded run is recorded once, as the run evals merge joins: its shards do not count twice", () => {
    const sharded = join(scratch, "sharded-db");
    for (const shard of ["1/2", "2/2"]) {
      const result = evalsBinary([
        ...["run", findTodos("cases/find-todos.yaml"), "--cassettes", findTodos("cassettes")],
        ...["--suite", "find-todos", "--mode", "strict", "--out", "sharded", "--shard", shard],
        ...["--db", sharded],
      ]);
      expect(result.err).toBe("");
      expect(result.code, result.out).toBe(EXIT.passed);
    }
    const merged = evalsBinary([
      "merge",
      "sharded/shard-1-of-2",
      "sharded/shard-2-of-2",
      "--out",
      "merged",
      "--db",
      sharded,
    ]);
    expect(merged.err).toBe("");
    expect(merged.code, merged.out).toBe(EXIT.passed);
    const json = JSON.parse(evalsBinary(["history", "--db", sharded, "--json"]).out);
    expect(json.cases.map((c: { runs: unknown[] }) => c.runs.length)).toEqual([1, 1]);
    expect(new Set(json.cases.map((c: { runs: { run_id: string }[] }) => c.runs[0]!.run_id)).size).toBe(1);
  }, 600_000);

  it("evals history refuses bad usage with exit code 2", () => {
    const since = evalsBinary(["history", "--db", db, "--since", "no-such-ref"]);
    expect(since.code).toBe(EXIT.badInput);
    expect(since.err).toContain("--since no-such-ref: neither a date (2026-11-01) nor a git commit");
    const bad = evalsBinary(["history", "import", join(scratch, "nope.json"), "--db", db]);
    expect(bad.code).toBe(EXIT.badInput);
    expect(bad.err).toContain("nope.json");
  }, 120_000);
});
