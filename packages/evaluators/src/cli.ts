#!/usr/bin/env node
import { createRequire } from "node:module";
import { GRADE_EXIT, gradeCommand, internalErrorMessage } from "./grade/grade-command.js";

const USAGE = `Usage: evals grade <run folder | cassette.json | run.json | stream.jsonl | events.jsonl> [--case <case file>] [options]

Grades a stored run against a case without running the agent again. A run folder the harness wrote
(test-output/<run id>/) holds the case it ran: without --case, that case is graded again, and a
trial the harness marked error (a replay that diverged from its recording) fails with its reason.

Options:
  --case <file>     the case file (YAML or JSON); optional for a harness run folder
  --case-id <id>    which case, when the file holds several
  --json            print the evaluation as JSON
  --verbose         show every violation and the evidence (and the stack of an internal error)
  -h, --help        this help
  -v, --version     the version

Exit code: 0 when the case passes, 1 when it fails, 2 when the input cannot be read,
3 on an internal error (a bug in evals grade: one line, the stack with --verbose).`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "-h" || command === "--help" || command === "help") {
    process.stdout.write(`${USAGE}\n`);
    return command === undefined ? 2 : 0;
  }
  if (command === "-v" || command === "--version") {
    const pkg = createRequire(import.meta.url)("../package.json") as { version: string };
    process.stdout.write(`${pkg.version}\n`);
    return 0;
  }
  if (command !== "grade") {
    process.stderr.write(`evals: unknown command ${JSON.stringify(command)}\n\n${USAGE}\n`);
    return 2;
  }
  return gradeCommand(rest, { stdout: process.stdout, stderr: process.stderr, usage: USAGE });
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${internalErrorMessage(error, process.argv.includes("--verbose"))}\n`);
    process.exitCode = GRADE_EXIT.internalError;
  },
);
