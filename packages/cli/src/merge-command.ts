import { existsSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import {
  type MergedComparison,
  mergeShardComparisons,
  variantSuite,
  writeVariantReports,
} from "@evals/harness";
import {
  mergeShardResults,
  ResultsFileError,
  readResults,
  ShardMergeError,
  type ShardResults,
  VARIANTS_FOLDER,
  writeReports,
} from "@evals/logging";
import { parseCommandArgs } from "./args.js";
import type { Command } from "./command.js";
import { BadInputError, UnreadableFileError, UsageError } from "./errors.js";
import { EXIT, EXIT_CODES_HELP } from "./exit-codes.js";
import { recordWritten } from "./record-in-store.js";

export const MERGE_USAGE = `Usage: evals merge <shard results...> [options]

Joins the results of a run split across machines (\`evals run --shard i/n\`, or EVALS_SHARD=i/n
with describeEval) into the reports one machine would have written for the same cases: latest.json,
the history file, junit.xml and report.html. Give every shard's results file (its latest.json), or
folders holding them: all n shards, each once, of the same commit.

Suites run under two variants (describeCases' variants, evals run --variants) leave each shard's
share of their comparison next to its results (<shard folder>/variants/<suite>/): each variant's
results are joined across the shards and compared again into <out>/variants/<suite>/ (each
variant's results, comparison.json, comparison.html), shown in report.html as on one machine.

Options:
  --out <dir>     where to write (default: results)
  --suite <name>  the run's name in the reports (default: as one machine names it)
  --db <url|dir|off>  the results database the merged run is recorded in, once, as one run
                  (default: EVALS_DB_URL, else .evals/db in the workspace)
  -h, --help      this help

${EXIT_CODES_HELP}
Here: 0 the merged cases all passed (a baseline variant's, mustPass: false, need not), 1 a case
failed, 2 a file cannot be read or the shards do not make one run (or compare different variants).`;

/** `evals merge`: one run's reports from the results of its shards. */
export const merge: Command = {
  name: "merge",
  summary: "join the results of `evals run --shard i/n` (or EVALS_SHARD) into one run's JSON, JUnit and HTML",
  usage: MERGE_USAGE,
  run: async (args, io) => {
    const parsed = parseCommandArgs("merge", args, {
      out: { type: "string" },
      suite: { type: "string" },
      db: { type: "string" },
    });
    const { values, positionals } = parsed;
    if (positionals.length === 0) throw new UsageError("name the shards' results files (or folders of them)");
    const shards: ShardResults[] = [];
    for (const target of positionals) {
      if (!existsSync(target)) {
        throw new UnreadableFileError(
          target,
          `${target}: no such file or folder (evals run --shard i/n writes each shard's results in <out>/shard-<i>-of-<n>)`,
        );
      }
      const file = statSync(target).isDirectory() ? join(target, "latest.json") : target;
      try {
        shards.push({ results: readResults(file), source: file });
      } catch (error) {
        if (!(error instanceof ResultsFileError)) throw error;
        throw new BadInputError(error.message);
      }
    }
    let merged: ReturnType<typeof mergeShardResults>;
    let comparisons: MergedComparison[];
    try {
      merged = mergeShardResults(shards);
      comparisons = mergeShardComparisons(shards);
    } catch (error) {
      if (!(error instanceof ShardMergeError) && !(error instanceof ResultsFileError)) throw error;
      throw new BadInputError(error.message);
    }
    const out = values.out ?? "results";
    // Each compared suite's variants folder, then the report with the comparisons one machine shows.
    const compared = comparisons.map((comparison) =>
      writeVariantReports(comparison, { dir: resolve(out, VARIANTS_FOLDER, comparison.name) }),
    );
    const written = writeReports(merged.cases, {
      ...merged.buildOptions,
      dir: out,
      ...(values.suite ? { suite: values.suite } : {}),
      ...(comparisons.length > 0
        ? { htmlOptions: { comparison: comparisons.map((c) => c.comparison) } }
        : {}),
    });
    const { results, files } = written;
    const show = (file: string) => relative(process.cwd(), file) || file;
    const { summary } = results;
    io.stdout.write(
      `${merged.shards} shard(s), ${summary.total} case(s), ${summary.trials} trial(s): ${summary.passed} passed, ${summary.total - summary.passed - summary.skipped} failed\n` +
        `Reports: ${[files.latest, files.junit, files.html]
          .filter((file): file is string => !!file)
          .map(show)
          .join(", ")}\n` +
        (compared.length > 0
          ? `Comparisons: ${compared.map((written) => show(written.comparison)).join(", ")}\n`
          : ""),
    );
    await recordWritten(written, "merge", values.db, io, merged.shards);
    // As `evals run --variants` decides: a baseline's cases (mustPass: false) fail no run.
    const baseline = new Set(
      comparisons.flatMap(({ runs }) =>
        runs
          .filter((run) => run.variant.mustPass === false)
          .flatMap((run) =>
            run.results.cases.map((c) => `${variantSuite(c.suite ?? "", run.variant)}\0${c.id}`),
          ),
      ),
    );
    const gatedFailures = results.cases.filter(
      (c) => c.status !== "passed" && c.status !== "skipped" && !baseline.has(`${c.suite}\0${c.id}`),
    );
    return gatedFailures.length === 0 ? EXIT.passed : EXIT.failed;
  },
};
