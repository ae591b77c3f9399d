import { resolve } from "node:path";
import { parseArgs } from "node:util";
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
import type { Command, CommandIo } from "./command.js";
import { EXIT, EXIT_CODES_HELP } from "./exit-codes.js";
import { resultsFileProblem } from "./input-file.js";
import { parseCommandArgs, usageError } from "./usage.js";

export const COMPARE_USAGE = `Usage: evals compare <results A> <results B> [options]

Compares two results files of the same cases run under two variants (with and without a skill, a
CLAUDE.md, two models; this branch against the last main run). Cases are matched by suite and case
id. Per case and overall (the trials of every matched case pooled): each side's pass rate with its
95% Wilson interval, the difference B − A with its 95% Newcombe interval, "within noise" when that
interval contains 0, and B's mean turns, tool calls, tokens and duration per trial minus A's (turns,
tool calls and tokens need the trials' runs in the files: write them with includeRuns "all").
Cases only one side ran are listed.

Options:
  --json          print the comparison as JSON instead of the table
  --html <file>   also write the comparison as an HTML page (A and B side by side)
  --label-a <s>   the name of side A (default A)
  --label-b <s>   the name of side B (default B)
  -h, --help      this help

${EXIT_CODES_HELP}
Here: 0 the comparison is printed (whatever it says), 2 a results file cannot be read (missing, not
a regular file, over 256 MiB, or not a results file).`;

/** `evals compare`: two results files side by side, with intervals that say what is noise. */
export const compare: Command = {
  name: "compare",
  summary: "compare two results files (with/without a change): pass rates, B − A with its interval, deltas",
  run: async (args, io) => {
    const parsed = parseCommandArgs("compare", COMPARE_USAGE, io, () =>
      parseArgs({
        args,
        options: {
          json: { type: "boolean" },
          html: { type: "string" },
          "label-a": { type: "string" },
          "label-b": { type: "string" },
          help: { type: "boolean", short: "h" },
        },
        allowPositionals: true,
      }),
    );
    if (!parsed) return EXIT.badInput;
    const { values, positionals } = parsed;
    if (values.help) {
      io.stdout.write(`${COMPARE_USAGE}\n`);
      return EXIT.passed;
    }
    if (positionals.length !== 2)
      return usageError(
        "compare",
        COMPARE_USAGE,
        positionals.length < 2
          ? "which results? give two results files, A then B"
          : `unexpected argument ${JSON.stringify(positionals[2])}`,
        io,
      );
    const a = read(positionals[0]!, io);
    const b = read(positionals[1]!, io);
    if (!a || !b) return EXIT.badInput;
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

function read(file: string, io: CommandIo): ResultsFile | undefined {
  const problem = resultsFileProblem(file);
  if (problem) {
    io.stderr.write(`evals compare: ${problem}\n`);
    return undefined;
  }
  try {
    return readResults(file);
  } catch (error) {
    if (!(error instanceof ResultsFileError)) throw error;
    io.stderr.write(
      `evals compare: ${error.message}\n(expected a results file of @evals/logging, such as results/latest.json)\n`,
    );
    return undefined;
  }
}
