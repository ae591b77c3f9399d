import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { claudeAvailable } from "@evals/claude-code";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/exit-codes.js";

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

interface TrialLine {
  position: number;
  trial: { trial: number; run_id: string; status: string };
}
interface CaseLine {
  position: number;
  passed: boolean;
  result: {
    id: string;
    status: string;
    error?: string;
    trials: { trial: number; run_id: string; status: string; error?: string }[];
  };
}
const parsed = () => journalLines().map((line) => JSON.parse(line) as Partial<TrialLine & CaseLine>);
const trialLines = () => parsed().filter((line): line is TrialLine => line.trial !== undefined);
const caseLines = () => parsed().filter((line): line is CaseLine => line.result !== undefined);

describe.skipIf(!claudeAvailable({ claudeBin }).available)("evals run --resume on the real CLI", () => {
  it("a 3-trial run SIGKILLed once the second case's first trial has its verdict: --resume runs only the trials without one (none twice, none lost); --retry-errors re-runs errored trials only", async () => {
    // The whole process group (evals and the claude it started) is killed once the journal holds
    // the second case's first trial: its other trials are running or still to run.
    const child = spawn(process.execPath, [...RUN, "--trials", "3"], {
      cwd: project,
      env,
      detached: true,
      stdio: "ignore",
    });
    const exited = new Promise<NodeJS.Signals | null>((done) =>
      child.on("exit", (_code, signal) => done(signal)),
    );
    const deadline = Date.now() + 600_000;
    while (!trialLines().some((line) => line.position === 1) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    process.kill(-child.pid!, "SIGKILL");
    expect(await exited).toBe("SIGKILL");
    // What the journal held at the kill, whatever else had finished by then.
    const header = JSON.parse(journalLines()[0]!) as { started_at: string; cases: string[] };
    expect(header.cases.map((key) => key.split("#")[1])).toEqual(["skill-then-grep", "grep-in-bash"]);
    expect(caseLines().map((line) => line.position)).toEqual([0]);
    const first = caseLines()[0]!.result.trials.map((t) => t.run_id);
    expect(first).toHaveLength(3);
    const keptOfSecond = new Map(
      trialLines()
        .filter((line) => line.position === 1)
        .map((line) => [line.trial.trial, line.trial.run_id]),
    );
    expect(keptOfSecond.size).toBeGreaterThanOrEqual(1);
    expect(keptOfSecond.size).toBeLessThan(3);
    expect(existsSync(join(project, "results", "latest.json"))).toBe(false);

    const resumed = evals([...RUN, "--trials", "3", "--resume"]);
    expect(resumed.err).toBe("");
    expect(resumed.code, resumed.out).toBe(EXIT.passed);
    expect(resumed.out).toContain(
      `Resuming the run of ${header.started_at}: 1 case(s) kept, 1 to run (${keptOfSecond.size} of their trials kept)`,
    );
    const results = latest();
    expect(results.meta.started_at).toBe(header.started_at);
    expect(results.cases.map((c) => [c.id, c.status, c.trials.length])).toEqual([
      ["skill-then-grep", "passed", 3],
      ["grep-in-bash", "passed", 3],
    ]);
    // The first case's trials and the second's journaled ones are those that ran before the kill;
    // the second's others ran once each, afterwards.
    expect(results.cases[0]!.trials.map((t) => t.run_id)).toEqual(first);
    const second = results.cases[1]!.trials;
    for (const [trial, runId] of keptOfSecond) expect(second[trial]!.run_id).toBe(runId);
    const rerun = second.filter((t) => !keptOfSecond.has(second.indexOf(t))).map((t) => t.run_id);
    expect(rerun).toHaveLength(3 - keptOfSecond.size);
    const allRunIds = results.cases.flatMap((c) => c.trials.map((t) => t.run_id));
    expect(new Set(allRunIds).size).toBe(6);
    expect(journalLines().at(-1)).toBe('{"complete":true}');
    // One run in the database, each case once.
    const history = JSON.parse(evals([cliJs, "history", "--db", "db", "--json"]).out) as {
      cases: { case_id: string; runs: { trial_count: number }[] }[];
    };
    expect(history.cases.map((c) => [c.case_id, c.runs.map((run) => run.trial_count)])).toEqual([
      ["grep-in-bash", [3]],
      ["skill-then-grep", [3]],
    ]);
    const again = evals([...RUN, "--trials", "3", "--resume"]);
    expect(again.code).toBe(EXIT.badInput);
    expect(again.err).toContain("nothing to resume: the run in");

    // Planted in the journal: the first case failed a rule in trial 0, the second's trial 1 could
    // not be judged (an API error). --retry-errors runs that one trial again and keeps the rest.
    const lines = caseLines();
    const [failedCase, erroredCase] = [lines[0]!, lines.find((line) => line.position === 1)!];
    failedCase.passed = false;
    failedCase.result.status = "failed";
    failedCase.result.trials[0]!.status = "failed";
    erroredCase.result.trials[1]!.status = "error";
    erroredCase.result.trials[1]!.error = "API Error: 529 overloaded";
    const erroredRun = erroredCase.result.trials[1]!.run_id;
    writeFileSync(
      journalFile,
      `${[journalLines()[0], ...[failedCase, erroredCase].map((line) => JSON.stringify(line))].join("\n")}\n{"complete":true}\n`,
    );
    const retried = evals([...RUN, "--trials", "3", "--retry-errors"]);
    expect(retried.code, retried.out).toBe(EXIT.failed);
    expect(retried.out).toContain("1 case(s) kept, 1 to run (2 of their trials kept)");
    const after = latest();
    expect(after.cases.map((c) => [c.id, c.status])).toEqual([
      ["skill-then-grep", "failed"],
      ["grep-in-bash", "passed"],
    ]);
    expect(after.cases[0]!.trials.map((t) => t.run_id)).toEqual(first);
    const retriedTrials = after.cases[1]!.trials.map((t) => t.run_id);
    expect(retriedTrials[0]).toBe(erroredCase.result.trials[0]!.run_id);
    expect(retriedTrials[2]).toBe(erroredCase.result.trials[2]!.run_id);
    expect(retriedTrials[1]).not.toBe(erroredRun);
    // The retried run was appended to the history digest the evals history above wrote (see
    // @evals/store): it answers as the database does.
    const digest = join(project, "db.history.jsonl");
    expect(existsSync(digest)).toBe(true);
    const fromDigest = evals([cliJs, "history", "--db", "db", "--json"]).out;
    rmSync(digest);
    expect(evals([cliJs, "history", "--db", "db", "--json"]).out).toBe(fromDigest);
    expect(
      (JSON.parse(fromDigest) as { cases: { runs: { status: string }[] }[] }).cases.map((c) =>
        c.runs.map((run) => run.status),
      ),
    ).toEqual([
      ["passed", "passed"],
      ["passed", "failed"],
    ]);

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
    expect(other.err).toContain("the journaled run ran with --trials 3, now 2");
  }, 1_200_000);
});
