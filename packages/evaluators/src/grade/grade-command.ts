import { dirname, join } from "node:path";
import { RUN_FOLDER_FILES, type RunFolderCase } from "@evals/core";
import { evaluate } from "../cases/evaluate.js";
import { CaseFileError, loadCases, parseCase } from "../cases/load.js";
import { casePrompts, type EvalCase } from "../cases/schema.js";
import { defaultRuleRegistry, type RuleRegistry } from "../rules/registry.js";
import { caseWithOutcome } from "../scorers.js";
import { failOnHarnessError, judgeAsHarness } from "./harness-grading.js";
import { writeJsonInPieces } from "./json-in-pieces.js";
import { loadStoredRun, type StoredRun, StoredRunError } from "./load-run.js";
import { formatEvaluation } from "./report.js";

interface Output {
  write(text: string): unknown;
}

/** `evals grade --help`. */
export const GRADE_USAGE = `Usage: evals grade <run folder | cassette.json | run.json | stream.jsonl | events.jsonl> [--case <case file>] [options]

Grades a stored run against a case without running the agent again (a Claude Code or an OpenCode run). A run folder the harness wrote
(test-output/<run id>/) holds the case it ran: without --case, that case is graded again, and a
trial the harness marked error (a replay that diverged from its recording) fails with its reason.
A wire recording (*.recording.json of @evals/vcr) holds model traffic, not a run: grade the run
folder of the trial that replayed it instead.

Options:
  --case <file>     the case file (YAML or JSON); optional for a harness run folder
  --case-id <id>    which case, when the file holds several
  --agent <name>    whose output a bare .jsonl is: claude-code (stream-json) or opencode
                    (\`opencode run --format json\`); detected from the first line when not given
  --json            print the evaluation as JSON
  --verbose         show every violation and the evidence (and the stack of an internal error)
  -h, --help        this help

Exit code: 0 when the case passes, 1 when it fails, 2 when the input cannot be read,
3 on an internal error (a bug in evals grade: one line, the stack with --verbose).`;

interface GradeArguments {
  target?: string;
  caseFile?: string;
  caseId?: string;
  agent?: "claude-code" | "opencode";
  json: boolean;
  verbose: boolean;
  help: boolean;
}

function parseArguments(argv: string[]): GradeArguments | string {
  const parsed: GradeArguments = { json: false, verbose: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [name, inline] =
      arg.startsWith("--") && arg.includes("=")
        ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
        : [arg, undefined];
    const value = () => {
      if (inline !== undefined) return inline;
      const next = argv[++i];
      if (next === undefined) throw new Error(`${name} needs a value`);
      return next;
    };
    try {
      if (name === "--case") parsed.caseFile = value();
      else if (name === "--case-id") parsed.caseId = value();
      else if (name === "--agent") {
        const agent = value();
        if (agent !== "claude-code" && agent !== "opencode")
          return `--agent must be claude-code or opencode, not ${JSON.stringify(agent)}`;
        parsed.agent = agent;
      } else if (name === "--json") parsed.json = true;
      else if (name === "--verbose") parsed.verbose = true;
      else if (name === "-h" || name === "--help") parsed.help = true;
      else if (name.startsWith("-")) return `unknown option ${name}`;
      else if (parsed.target === undefined) parsed.target = arg;
      else return `unexpected argument ${JSON.stringify(arg)}`;
    } catch (error) {
      return (error as Error).message;
    }
  }
  return parsed;
}

/** The exit codes of `evals grade`. */
export const GRADE_EXIT = {
  passed: 0,
  failed: 1,
  /** The run, the case file or the arguments cannot be read. */
  unreadable: 2,
  /** evals grade itself failed (a bug): a one-line message, the stack with --verbose. */
  internalError: 3,
} as const;

/**
 * `evals grade` (the `evals` binary of @evals/harness runs it): grades a stored run; `argv` are the
 * arguments after `grade`. Writes the verdict to `io.stdout`, problems to `io.stderr`, and returns
 * the exit code (see GRADE_EXIT). `io.usage` replaces GRADE_USAGE in the help and usage errors;
 * `io.rules` is the registry of the rules cases may name (default: the built-in rules).
 */
export async function gradeCommand(
  argv: string[],
  output: { stdout: Output; stderr: Output; usage?: string; rules?: RuleRegistry },
): Promise<number> {
  const io = { ...output, usage: output.usage ?? GRADE_USAGE, rules: output.rules ?? defaultRuleRegistry };
  const args = parseArguments(argv);
  if (typeof args === "string") {
    io.stderr.write(`evals grade: ${args}\n\n${io.usage}\n`);
    return GRADE_EXIT.unreadable;
  }
  try {
    return await grade(args, io);
  } catch (error) {
    io.stderr.write(`${internalErrorMessage(error, args.verbose)}\n`);
    return GRADE_EXIT.internalError;
  }
}

/**
 * An internal error in one line (what and where it failed), or with its stack when verbose, said by
 * `command` (default "evals grade").
 */
export function internalErrorMessage(error: unknown, verbose: boolean, command = "evals grade"): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  if (verbose && error instanceof Error && error.stack) return `${command}: internal error: ${error.stack}`;
  return `${command}: internal error: ${text.split("\n")[0]} (this is a bug in ${command}; --verbose shows the stack)`;
}

async function grade(
  args: GradeArguments,
  io: { stdout: Output; stderr: Output; usage: string; rules: RuleRegistry },
) {
  if (args.help) {
    io.stdout.write(`${io.usage}\n`);
    return GRADE_EXIT.passed;
  }
  if (!args.target) {
    io.stderr.write(`evals grade: which run? give a run folder, cassette or stream.jsonl\n\n${io.usage}\n`);
    return GRADE_EXIT.unreadable;
  }
  let evalCase: EvalCase | undefined;
  if (args.caseFile) {
    try {
      const cases = loadCases(args.caseFile, { rules: io.rules });
      const chosen = args.caseId
        ? cases.find((item) => item.id === args.caseId)
        : cases.length === 1
          ? cases[0]
          : undefined;
      if (!chosen) {
        const ids = cases.map((item) => item.id).join(", ");
        io.stderr.write(
          args.caseId
            ? `evals grade: ${args.caseFile} has no case ${JSON.stringify(args.caseId)} (cases: ${ids})\n`
            : `evals grade: ${args.caseFile} holds ${cases.length} cases; pick one with --case-id (${ids})\n`,
        );
        return GRADE_EXIT.unreadable;
      }
      evalCase = chosen;
    } catch (error) {
      if (error instanceof CaseFileError) {
        io.stderr.write(`evals grade: invalid case file\n${error.message}\n`);
        return GRADE_EXIT.unreadable;
      }
      throw error;
    }
  }
  let stored: StoredRun;
  try {
    stored = await loadStoredRun(args.target, {
      ...(evalCase ? { prompts: casePrompts(evalCase) } : {}),
      ...(args.agent ? { agent: args.agent } : {}),
    });
  } catch (error) {
    if (error instanceof StoredRunError || (error as Error).name === "JsonlLineError") {
      io.stderr.write(`evals grade: cannot read the run: ${(error as Error).message}\n`);
      return GRADE_EXIT.unreadable;
    }
    throw error;
  }
  for (const warning of stored.warnings) io.stderr.write(`evals grade: warning: ${warning}\n`);
  const recorded = stored.manifest?.case;
  if (!evalCase) {
    // The case the harness ran, stored in the run folder with its verdict.
    if (!recorded) {
      io.stderr.write(
        `evals grade: --case <file> is required (${stored.file} holds no case: only a run folder written by the harness does)\n\n${io.usage}\n`,
      );
      return GRADE_EXIT.unreadable;
    }
    // The case is in the run folder's manifest, beside the file the run was read from.
    const manifestFile = join(dirname(stored.file), RUN_FOLDER_FILES.manifest);
    try {
      evalCase = parseCase(recorded.value, `the case stored in ${manifestFile}`, io.rules);
    } catch (error) {
      const verdict = recorded.grading?.verdict;
      io.stderr.write(
        `evals grade: the run folder's case ${JSON.stringify(recorded.id)} is not an @evals/evaluators case, so it cannot be graded without one; give --case <file>\n${(error as Error).message}\n${verdict ? `${harnessVerdictLine(verdict)}\n` : ""}`,
      );
      return GRADE_EXIT.unreadable;
    }
  }
  // The run must end as the harness expected it to (the suite's outcome option) unless the case says.
  // The whole stored result when there is one: its exit code and timeout are part of the outcome.
  const evaluated = await evaluate(
    stored.result ?? stored.run,
    caseWithOutcome(evalCase, recorded?.grading?.outcome),
    io.rules,
  );
  // The stored case is judged as the harness judged it: with the thresholds it used.
  const judged =
    !args.caseFile && recorded?.grading ? judgeAsHarness(evaluated, recorded.grading, io.rules) : evaluated;
  const harness = recorded?.grading?.verdict;
  const evaluation = harness ? failOnHarnessError(judged, harness) : judged;
  if (args.json) {
    // In pieces: the report of a very long run outgrows the longest string V8 can make.
    writeJsonInPieces(
      {
        source: stored.file,
        format: stored.format,
        ...evaluation,
        ...(stored.warnings.length > 0 ? { warnings: stored.warnings } : {}),
        ...(harness ? { harnessVerdict: harness } : {}),
      },
      (piece) => io.stdout.write(piece),
    );
    io.stdout.write("\n");
  } else {
    io.stdout.write(
      `${formatEvaluation(evaluation, stored.run, { source: `${stored.file} (${stored.format}${stored.result?.origin === "replay" ? ", replayed: its cost was the recording's" : ""})`, verbose: args.verbose })}\n`,
    );
    if (harness) {
      const same =
        harness.status === "error"
          ? !evaluation.passed
          : harness.status === (evaluation.passed ? "passed" : "failed");
      io.stdout.write(
        `The harness's verdict on this run: ${harness.status.toUpperCase()}${same ? "" : " (not this one: the harness ran other scorers or options)"}\n`,
      );
    }
  }
  return evaluation.passed ? GRADE_EXIT.passed : GRADE_EXIT.failed;
}

type HarnessVerdict = NonNullable<RunFolderCase["grading"]>["verdict"];

/** The verdict the harness stored, in one line: "FAILED (outcome 0.00 failed, my-scorer 1.00 passed)". */
function harnessVerdictLine(verdict: HarnessVerdict): string {
  const scores = verdict.scores.map(
    (score) => `${score.scorer} ${score.score.toFixed(2)} ${score.passed ? "passed" : "failed"}`,
  );
  const why = verdict.error?.split("\n")[0] ?? scores.join(", ");
  return `The harness's verdict on this run: ${verdict.status.toUpperCase()}${why ? ` (${why})` : ""}`;
}
