#!/usr/bin/env node
import { createRequire } from "node:module";
import { gradeCommand } from "./grade/grade-command.js";

const USAGE = `Usage: evals grade <run folder | cassette.json | run.json | stream.jsonl | events.jsonl> --case <case file> [options]

Grades a stored run against a case without running the agent again.

Options:
  --case <file>     the case file (YAML or JSON)
  --case-id <id>    which case, when the file holds several
  --json            print the evaluation as JSON
  --verbose         show every violation and the evidence
  -h, --help        this help
  -v, --version     the version

Exit code: 0 when the case passes, 1 when it fails, 2 when the input cannot be read.`;

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
    process.stderr.write(
      `evals: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 2;
  },
);
