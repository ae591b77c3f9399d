import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { claudeAvailable } from "@evals/claude-code";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/cli/exit-codes.js";

const claudeBin = resolve(__dirname, "../../../node_modules/.bin/claude");
const cliJs = resolve(__dirname, "../dist/cli.js");
const findTodos = resolve(__dirname, "../../../examples/find-todos");
const project = mkdtempSync(join(tmpdir(), "harness-resume-"));
for (const part of ["cases", "cassettes", "__fixtures__"])
  cpSync(join(findTodos, part), join(project, part), { recursive: true });
afterAll(() => rmSync(project, { recursive: true, force: true }));

const env = { ...process.env, EVALS_CLAUDE_BIN: claudeBin, EVALS_OUTPUT_DIR: project, FORCE_COLOR: "0" };
const RUN = [
  cliJs,
  "run",
  "cases/find-todos.yaml",
  "--cassettes",
  "cassettes",
  // The example's recordings were made under its describeCases suite.
  "--suite",
  "find-todos",
  "--mode",
  "strict",
  "--db",
  "db",
];
const journalFile = join(project, "results", "run-journal.jsonl");

function evals(args: string[]) {
  const result = spawnSync(process.execPath, args, { cwd: project, encoding: "utf8", timeout: 400_000, env });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

const journalLines = () =>
  existsSync(journalFile) ? readFileSync(journalFile, "utf8").split("\n").filter(Boolean) : [];
const latest = () =>
  JSON.parse(readFileSync(join(project, "results", "latest.json"), "utf8")) as {
    meta: { started_at: string };
    cases: { id: string; status: string; trials: { run_id: string; status: string }[] }[];
  };

describe.skipIf(!claudeAvailable({ claudeBin }).available)("evals run --resume on the real CLI", () => {
  it("a run SIGKILLed after its first case: --resume runs only the second, no case twice, none lost; --retry-errors re-runs errored cases only", async () => {
    // The whole process group (evals and the claude it started) is killed once the first case's
    // verdict is in the journal, while the second case runs.
    const child = spawn(process.execPath, RUN, { cwd: project, env, detached: true, stdio: "ignore" });
    const exited = new Promise<NodeJS.Signals | null>((done) =>
      child.on("exit", (_code, signal) => done(signal)),
    );
    const deadline = Date.now() + 300_000;
    // Polled often: the second case's replay (a claude process) takes far longer than a poll.
    while (journalLines().length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    process.kill(-child.pid!, "SIGKILL");
    expect(await exited).toBe("SIGKILL");
    const beforeResume = journalLines();
    expect(beforeResume).toHaveLength(2);
    const header = JSON.parse(beforeResume[0]!) as { started_at: string; cases: string[] };
    expect(header.cases.map((key) => key.split("#")[1])).toEqual(["skill-then-grep", "grep-in-bash"]);
    const first = JSON.parse(beforeResume[1]!) as {
      position: number;
      result: { id: string; trials: { run_id: string }[] };
    };
    expect(first.position).toBe(0);
    expect(existsSync(join(project, "results", "latest.json"))).toBe(false);

    const resumed = evals([...RUN, "--resume"]);
    expect(resumed.err).toBe("");
    expect(resumed.code, resumed.out).toBe(EXIT.passed);
    expect(resumed.out).toContain(`Resuming the run of ${header.started_at}: 1 case(s) kept, 1 to run`);
    const results = latest();
    expect(results.meta.started_at).toBe(header.started_at);
    expect(results.cases.map((c) => [c.id, c.status, c.trials.length])).toEqual([
      ["skill-then-grep", "passed", 1],
      ["grep-in-bash", "passed", 1],
    ]);
    // The first case's trial is the one that ran before the kill: it was not run again.
    expect(results.cases[0]!.trials[0]!.run_id).toBe(first.result.trials[0]!.run_id);
    expect(journalLines().at(-1)).toBe('{"complete":true}');
    // One run in the database, each case once.
    const history = JSON.parse(evals([cliJs, "history", "--db", "db", "--json"]).out) as {
      cases: { case_id: string; runs: unknown[] }[];
    };
    expect(history.cases.map((c) => [c.case_id, c.runs.length])).toEqual([
      ["grep-in-bash", 1],
      ["skill-then-grep", 1],
    ]);
    const again = evals([...RUN, "--resume"]);
    expect(again.code).toBe(EXIT.badInput);
    expect(again.err).toContain("nothing to resume: the run in");

    // Planted in the journal: the first case failed a rule, the second could not be judged (an
    // API error). --retry-errors runs the second again and keeps the first's verdict.
    const lines = journalLines()
      .slice(0, 3)
      .map((line) => JSON.parse(line));
    lines[1].result.status = "failed";
    lines[1].passed = false;
    const errored = lines.findIndex((line) => line.position === 1);
    lines[errored].result.status = "error";
    lines[errored].result.error = "API Error: 529 overloaded";
    const erroredRun = lines[errored].result.trials[0].run_id;
    writeFileSync(
      journalFile,
      `${lines.map((line) => JSON.stringify(line)).join("\n")}\n{"complete":true}\n`,
    );
    const retried = evals([...RUN, "--retry-errors"]);
    expect(retried.code, retried.out).toBe(EXIT.failed);
    expect(retried.out).toContain("1 case(s) kept, 1 to run");
    const after = latest();
    expect(after.cases.map((c) => [c.id, c.status])).toEqual([
      ["skill-then-grep", "failed"],
      ["grep-in-bash", "passed"],
    ]);
    expect(after.cases[1]!.trials[0]!.run_id).not.toBe(erroredRun);

    const other = evals([
      cliJs,
      "run",
      "cases",
      "--cassettes",
      "cassettes",
      "--db",
      "db",
      "--resume",
      "--trials",
      "2",
    ]);
    expect(other.code).toBe(EXIT.badInput);
    expect(other.err).toContain("the journaled run ran with --trials (each case's), now 2");
  }, 900_000);
});
