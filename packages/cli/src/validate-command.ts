import { existsSync, statSync } from "node:fs";
import {
  CaseFileError,
  type CaseIssue,
  caseFilesIn,
  formatIssue,
  type LoadedCase,
  loadCases,
} from "@evals/evaluators";
import {
  caseFixtureProblems,
  MAX_TRIALS,
  type RunnerRegistry,
  runnableCaseProblems,
  runnerOptionProblems,
} from "@evals/harness";
import { parseCommandArgs } from "./args.js";
import type { Command, CommandIo } from "./command.js";
import { UnreadableFileError, UsageError } from "./errors.js";
import { EXIT, EXIT_CODES_HELP } from "./exit-codes.js";
import { cliRunners } from "./runners.js";

export const VALIDATE_USAGE = `Usage: evals validate <case file or folder>... [options]

Reads each case file (YAML or JSON; a folder: every .yaml, .yml and .json file in it) and checks
every case against the case schema of @evals/evaluators, without running anything. Every problem is
printed with its file, line, column and field; a case id used twice (in one file or across the
files given), a case without a prompt, more than ${MAX_TRIALS} trials, and a fixture that \`evals run\`
would refuse are problems too: one that is missing or not a folder, outside the case's project (its
git checkout, else its package, else the folder above the case file's) unless the case sets
agent.fixtureOutsideProject: true, or holding a link that leaves it or points at nothing, a FIFO,
socket or device, or an unreadable file. What validate passes, \`evals run\` does not reject. Warnings (a tool
name Claude Code does not know) do not fail.

Options:
  --quiet     print only the problems
  -h, --help  this help

${EXIT_CODES_HELP}
Here: 0 every case is valid, 1 a case file has problems, 2 a file or folder cannot be read.`;

/** `evals validate`: parses and checks case files. */
export const validate: Command = {
  name: "validate",
  summary: "check case files: every problem with its file, line and field",
  usage: VALIDATE_USAGE,
  run: async (args, io) => {
    const parsed = parseCommandArgs("validate", args, { quiet: { type: "boolean" } });
    if (parsed.positionals.length === 0) throw new UsageError("which case files?");
    return validateFiles(
      parsed.positionals,
      { quiet: parsed.values.quiet === true, runners: cliRunners() },
      io,
    );
  },
};

function validateFiles(
  paths: string[],
  options: { quiet: boolean; runners: RunnerRegistry },
  io: CommandIo,
): number {
  const missing = paths.filter((path) => !existsSync(path));
  if (missing.length > 0)
    throw new UnreadableFileError(
      missing[0] as string,
      `${missing.join(", ")}: no such file or folder (evals validate takes case files, YAML or JSON, and folders of them)`,
    );
  const problems: CaseIssue[] = [];
  /** Where each case id was first seen, across every file given. */
  const ids = new Map<string, string>();
  let valid = 0;
  // A folder is its case files, each checked on its own: one file's YAML error hides no other's problems.
  const files = paths.flatMap((path) => (statSync(path).isDirectory() ? caseFilesIn(path) : [path]));
  for (const path of files) {
    const warnings: CaseIssue[] = [];
    let cases: LoadedCase[];
    try {
      // The checks `evals run` makes too (loadCaseList: the fixture, the runner's options), so what passes here runs.
      cases = loadCases(path, {
        onWarning: (warning) => warnings.push(warning),
        check: (evalCase) => [
          ...caseFixtureProblems(evalCase),
          ...runnerOptionProblems(evalCase, options.runners),
        ],
        ...(io.rules ? { rules: io.rules } : {}),
      });
    } catch (error) {
      if (!(error instanceof CaseFileError)) throw error;
      if (error.unreadable) throw new UnreadableFileError(path, error.message);
      problems.push(...error.issues);
      for (const issue of error.issues) io.stderr.write(`${formatIssue(issue)}\n`);
      continue;
    } finally {
      for (const warning of warnings) io.stderr.write(`warning: ${formatIssue(warning)}\n`);
    }
    const caseProblems: CaseIssue[] = [];
    for (const evalCase of cases) {
      const found = checkCase(evalCase, ids);
      caseProblems.push(...found);
      if (found.length === 0) valid++;
    }
    for (const issue of caseProblems) io.stderr.write(`${formatIssue(issue)}\n`);
    problems.push(...caseProblems);
    if (!options.quiet && caseProblems.length === 0) {
      const shown = cases.map((evalCase) => evalCase.id);
      io.stdout.write(
        `ok  ${path}: ${cases.length} case${cases.length === 1 ? "" : "s"} (${shown.slice(0, 8).join(", ")}${shown.length > 8 ? ", ..." : ""})\n`,
      );
    }
  }
  if (problems.length > 0) {
    io.stderr.write(
      `\n${problems.length} problem${problems.length === 1 ? "" : "s"} in the case files (${valid} valid case${valid === 1 ? "" : "s"})\n`,
    );
    return EXIT.failed;
  }
  if (!options.quiet) io.stdout.write(`${valid} valid case${valid === 1 ? "" : "s"}\n`);
  return EXIT.passed;
}

/**
 * What the schema cannot see in a loaded case: what keeps it from running (runnableCaseProblems), an
 * id another file given already uses (`ids`: id to file).
 */
function checkCase(evalCase: LoadedCase, ids: Map<string, string>): CaseIssue[] {
  const problems = runnableCaseProblems(evalCase);
  const other = ids.get(evalCase.id);
  if (other !== undefined && other !== evalCase.file) {
    problems.push({
      file: evalCase.file,
      field: "id",
      message: `case id ${JSON.stringify(evalCase.id)} is also used in ${other}`,
    });
  }
  if (other === undefined) ids.set(evalCase.id, evalCase.file);
  return problems;
}
