import { resolve } from "node:path";
import {
  compareResults,
  formatComparisonTable,
  type ResultsFile,
  ResultsFileError,
  readResults,
  renderComparisonHtml,
  shouldUseColor,
  writeFileAtomic,
} from "@evals/logging";
import { parseCommandArgs } from "./args.js";
import type { Command, CommandIo } from "./command.js";
import { compareWithBaseline } from "./compare-baseline.js";
import { UnreadableFileError, UsageError } from "./errors.js";
import { EXIT, EXIT_CODES_HELP } from "./exit-codes.js";
import { NOT_A_RESULTS_FILE, resultsFileProblem } from "./input-file.js";

export const COMPARE_USAGE = `Usage: evals compare <results A> <results B> [options]
       evals compare --baseline <branch|commit|run id> [<results file> | --run <id>] [options]

Compares two results files of the same cases run under two variants (with and without a skill, a
CLAUDE.md, two models; this branch against the last main run). Cases are matched by suite and case
id. Per case and overall (the trials of every matched case pooled): each side's pass rate with its
95% Wilson interval, the difference B − A with its 95% Newcombe interval, "within noise" when that
interval contains 0, and B's mean turns, tool calls, tokens and duration per trial minus A's (turns,
tool calls and tokens need the trials' runs in the files: write them with includeRuns "all").
Cases only one side ran are listed.

With --baseline, compares a run with the most recent run of its baseline recorded in the results
database: a run id (or a prefix of one), a git branch runs were recorded on (main), or a commit (a
hash, or a ref of this checkout). The run compared (B) is --run's, else the results file given
(recorded in the database first, once), else the latest recorded run. Per case and overall: B − A
with its 95% Newcombe interval, regressed / improved / within noise, the first trajectory step where
a flipped case's run differs from the baseline's, and the deltas of cost, tokens, turns and time per
trial. It refuses (exit 2), naming what differs, when the runs are not comparable (another case set,
agent CLI or version, model, recorded model or variant), unless --force.

Options:
  --json          print the comparison as JSON instead of the table
  --html <file>   also write the comparison as an HTML page (A and B side by side)
  --label-a <s>   the name of side A (default A)
  --label-b <s>   the name of side B (default B)
  -h, --help      this help

With --baseline:
  --baseline <ref>        the baseline: a branch, a commit or a run id
  --run <id>              the run compared (default: the results file given, else the latest run)
  --db <url|dir>          the results database (default: EVALS_DB_URL, else .evals/db)
  --force                 compare runs that are not comparable (the output says what differs)
  --format <f>            text (default), json, or github: the job summary in Markdown (appended
                          to $GITHUB_STEP_SUMMARY, or written to --summary-file), one ::error
                          annotation per regressed case on stdout (file and line of its case), and
                          a PR comment body (--comment-file)
  --summary-file <file>   where the GitHub job summary goes (default: $GITHUB_STEP_SUMMARY)
  --comment-file <file>   where the PR comment body goes (default: evals-pr-comment.md)
  --fail-on <when>        regression (default): exit 1 when a case or the overall pass rate
                          regressed beyond noise; none: exit 0 whatever the comparison says

${EXIT_CODES_HELP}
Here: 0 the comparison is printed (two results files: whatever it says; --baseline: no regression
beyond noise), 1 --baseline: a regression beyond noise (see --fail-on), 2 a results file cannot be
read (missing, not a regular file, over 256 MiB, or not a results file), no run of the baseline is
recorded, or the runs are not comparable (without --force).`;

/** `evals compare`: two results files side by side, with intervals that say what is noise. */
export const compare: Command = {
  name: "compare",
  summary: "compare two results files (with/without a change): pass rates, B − A with its interval, deltas",
  usage: COMPARE_USAGE,
  run: async (args, io) => {
    const parsed = parseCommandArgs("compare", args, {
      json: { type: "boolean" },
      html: { type: "string" },
      "label-a": { type: "string" },
      "label-b": { type: "string" },
      baseline: { type: "string" },
      run: { type: "string" },
      db: { type: "string" },
      force: { type: "boolean" },
      format: { type: "string" },
      "summary-file": { type: "string" },
      "comment-file": { type: "string" },
      "fail-on": { type: "string" },
    });
    const { values, positionals } = parsed;
    if (values.baseline !== undefined) return baselineMode(values, positionals, io);
    const baselineOnly = (
      ["run", "force", "format", "summary-file", "comment-file", "fail-on"] as const
    ).find((option) => values[option] !== undefined);
    if (baselineOnly) throw new UsageError(`--${baselineOnly} goes with --baseline <branch|commit|run id>`);
    if (positionals.length !== 2)
      throw new UsageError(
        positionals.length < 2
          ? "which results? give two results files, A then B"
          : `unexpected argument ${JSON.stringify(positionals[2])}`,
      );
    const a = read(positionals[0]!);
    const b = read(positionals[1]!);
    const comparison = compareResults(a, b, {
      labels: [values["label-a"] ?? "A", values["label-b"] ?? "B"],
    });
    if (values.json) io.stdout.write(`${JSON.stringify(comparison, null, 2)}\n`);
    else
      io.stdout.write(
        formatComparisonTable(comparison, {
          color: shouldUseColor(io.stdout as Parameters<typeof shouldUseColor>[0]),
          // A terminal's width; piped to a file or another program, nothing is cut.
          width: (io.stdout as { columns?: number }).columns ?? Number.POSITIVE_INFINITY,
        }),
      );
    if (values.html !== undefined) {
      const file = resolve(values.html);
      writeFileAtomic(file, renderComparisonHtml(comparison));
      io.stderr.write(`evals compare: wrote ${file}\n`);
    }
    return EXIT.passed;
  },
};

function baselineMode(
  values: Record<string, string | boolean | undefined>,
  positionals: string[],
  io: CommandIo,
): Promise<number> | number {
  const format = (values.format as string | undefined) ?? (values.json ? "json" : "text");
  if (format !== "text" && format !== "json" && format !== "github")
    throw new UsageError(`--format must be text, json or github, got ${format}`);
  const failOn = (values["fail-on"] as string | undefined) ?? "regression";
  if (failOn !== "regression" && failOn !== "none")
    throw new UsageError(`--fail-on must be regression or none, got ${failOn}`);
  if (positionals.length > 1 || (positionals.length === 1 && values.run !== undefined))
    throw new UsageError(
      "--baseline compares one run with its baseline: give one results file or --run <id>, not both",
    );
  const text = (name: string) => values[name] as string | undefined;
  return compareWithBaseline(
    {
      baseline: values.baseline as string,
      ...(text("run") !== undefined ? { run: text("run") } : {}),
      ...(positionals[0] !== undefined ? { resultsFile: positionals[0] } : {}),
      ...(text("db") !== undefined ? { db: text("db") } : {}),
      ...(text("summary-file") !== undefined ? { summaryFile: text("summary-file") } : {}),
      ...(text("comment-file") !== undefined ? { commentFile: text("comment-file") } : {}),
      force: values.force === true,
      format,
      failOn,
    },
    io,
  );
}

/** The results file A or B; an UnreadableFileError naming it when it cannot be read. */
function read(file: string): ResultsFile {
  const problem = resultsFileProblem(file);
  if (problem) throw new UnreadableFileError(file, problem);
  try {
    return readResults(file);
  } catch (error) {
    if (!(error instanceof ResultsFileError)) throw error;
    throw new UnreadableFileError(file, `${error.message}\n${NOT_A_RESULTS_FILE}`);
  }
}
