import { existsSync } from "node:fs";
import { relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import {
  formatCasesTable,
  parseShard,
  type Shard,
  shardFromEnv,
  shardResultsDir,
  shouldUseColor,
  writeReports,
} from "@evals/logging";
import { type ScriptFunction, VCR_MODES, type VcrMode } from "@evals/vcr";
import { type CaseModels, runCases } from "../run-case.js";
import {
  formatVariantsReport,
  loadVariants,
  type Variant,
  VariantsFileError,
  type VariantsResult,
  variantReportsDir,
  variantSuite,
  writeVariantReports,
} from "../variants.js";
import type { Command, CommandIo } from "./command.js";
import { EXIT, EXIT_CODES_HELP } from "./exit-codes.js";
import { parseCommandArgs, usageError } from "./usage.js";

const OPTIONS_HELP = `  --trials <n>        runs per case (default: each case's trials, else 1)
  --model <module>    a JavaScript module whose default export is the scripted model: a function
                      (request) => reply for every case, or { [case id]: function }
  --cassettes <dir>   the recordings' folder (default: cassettes)
  --suite <name>      the suite: recordings go to <dir>/<suite>/, keyed by suite and case id (default:
                      none: recordings go to <dir>/, keyed by the case id, so renaming a case file
                      keeps them; the reports name each case file's suite)
  --out <dir>         where the reports go (default: results)
  --concurrency <n>   trials running at once (default 1)
  --variants <file>   run every case under the two variants of a variants file (YAML, version 1)
                      and compare them: each variant's results, comparison.json and comparison.html
                      go to <out>/variants/<suite>/, and the comparison table is printed
  --shard <i/n>       run only shard i of n of the cases (default: EVALS_SHARD): every machine runs
                      its own share, keeping every run in its results (in <out>/shard-<i>-of-<n>,
                      with --variants its comparison too), and \`evals merge\` joins them
  -h, --help          this help`;

export const RUN_USAGE = `Usage: evals run <cases...> [options]

Runs case files (YAML or JSON, or folders of them) with the real claude CLI, each trial in a fresh
copy of the case's fixture, judged by the case's own rules and expected violations. The model's
side is replayed from the recordings in the cassette folder; with --model, a case without a
recording is recorded from its scripted model first (VCR_MODE=auto; on CI, strict: never recorded).
Prints one table and a summary, and writes results/latest.json, junit.xml and report.html.
With --variants, every case runs under variant A and variant B (same trials, same fixtures; each
variant its own run ids and recordings, <case id>.<variant>.<hash>.recording.json) and the two are
compared: pass rates with 95% intervals, B − A with its interval ("within noise" when it contains
0), and the deltas in turns, tool calls, tokens and time.

Options:
  --mode <mode>       record | replay | auto | strict | off (default: VCR_MODE, else strict on CI, else auto)
${OPTIONS_HELP}

${EXIT_CODES_HELP}
Here: 0 every case passed, 1 a case failed, 2 bad usage, unreadable cases or a missing recording.`;

export const RECORD_USAGE = `Usage: evals record <cases...> [options]

Records the model's side of every case again, with the real claude CLI, into the cassette folder:
from the scripted model of --model, or, without it, from the real API (ANTHROPIC_API_KEY). Older
recordings of a case are removed. Then \`evals run\` replays them offline. The cases are judged as
they are recorded.

Options:
${OPTIONS_HELP}

${EXIT_CODES_HELP}
Here: 0 every case passed, 1 a case failed, 2 bad usage, unreadable cases or nothing to record from.`;

/** `evals run`: runs cases, replayed from their recordings. */
export const runSubcommand: Command = {
  name: "run",
  summary: "run case files with the real claude CLI (replayed from recordings), with trials and reports",
  run: (args, io) => runCommand(args, io),
};

/** `evals record`: records cases' model side from a scripted model or the real API. */
export const recordSubcommand: Command = {
  name: "record",
  summary: "record case files' model side (from --model's scripted model, or live with ANTHROPIC_API_KEY)",
  run: (args, io) => runCommand(args, io, { record: true }),
};

/**
 * `evals run <cases…>` (or, with `record`, `evals record <cases…>`): runs the cases through
 * runCases, prints one table and a summary, writes the reports. Returns the exit code.
 */
export async function runCommand(
  args: string[],
  io: CommandIo,
  options: { record?: boolean } = {},
): Promise<number> {
  const name = options.record ? "record" : "run";
  const usage = options.record ? RECORD_USAGE : RUN_USAGE;
  const parsed = parseCommandArgs(name, usage, io, () => parse(args));
  if (!parsed) return EXIT.badInput;
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(`${usage}\n`);
    return EXIT.passed;
  }
  if (positionals.length === 0) return usageError(name, usage, "name at least one case file or folder", io);
  const trials = count(values.trials, "--trials");
  const concurrency = count(values.concurrency, "--concurrency");
  const problem = trials.problem ?? concurrency.problem;
  if (problem) return usageError(name, usage, problem, io);
  if (options.record && values.mode !== undefined) {
    return usageError(name, usage, "evals record always records: --mode is for evals run", io);
  }
  let shard: Shard | undefined;
  try {
    shard = values.shard !== undefined ? parseShard(values.shard, "--shard") : shardFromEnv();
  } catch (error) {
    return usageError(name, usage, (error as Error).message, io);
  }
  const mode = options.record ? "record" : values.mode;
  if (mode !== undefined && !(VCR_MODES as readonly string[]).includes(mode)) {
    return usageError(name, usage, `--mode must be one of ${VCR_MODES.join(", ")}, got ${mode}`, io);
  }
  let variants: [Variant, Variant] | undefined;
  if (values.variants !== undefined) {
    try {
      variants = loadVariants(values.variants);
    } catch (error) {
      if (!(error instanceof VariantsFileError)) throw error;
      io.stderr.write(`evals ${name}: ${error.message}\n`);
      return EXIT.badInput;
    }
  }
  let model: CaseModels | undefined;
  if (values.model !== undefined) {
    const loaded = await loadModel(values.model);
    if (typeof loaded === "string") return usageError(name, usage, loaded, io);
    model = loaded;
  }

  const startedAt = new Date();
  let result: Awaited<ReturnType<typeof runCases>>;
  try {
    result = await runCases(positionals, {
      cassette: { dir: values.cassettes ?? "cassettes", ...(mode ? { mode: mode as VcrMode } : {}) },
      ...(model ? { model } : {}),
      ...(trials.value !== undefined ? { trials: trials.value } : {}),
      ...(concurrency.value !== undefined ? { concurrency: concurrency.value } : {}),
      ...(values.suite ? { suite: values.suite } : {}),
      ...(variants ? { variants } : {}),
      ...(shard ? { shard } : {}),
    });
  } catch (error) {
    io.stderr.write(`evals ${name}: ${(error as Error).message}\n`);
    return EXIT.badInput;
  }
  const out = values.out ?? "results";
  // A shard writes into its own folder (its variants folder too), keeping every run and each case's place.
  const written = result.shard
    ? {
        dir: shardResultsDir(out, result.shard),
        startedAt,
        includeRuns: "all" as const,
        meta: { shard: result.shard },
      }
    : { dir: out, startedAt };
  if (result.variants) return reportVariants(result.variants, written, io);
  const results = result.outcomes.map((outcome) => outcome.result);
  io.stdout.write(`${formatCasesTable(results)}\n`);
  for (const outcome of result.outcomes) {
    if (outcome.message) io.stdout.write(`\n${outcome.message}\n`);
  }
  const { files } = writeReports(results, written);
  const passed = result.outcomes.filter((outcome) => outcome.passed).length;
  const trialCount = results.reduce((sum, caseResult) => sum + caseResult.trials.length, 0);
  const shown = (path: string) => relative(process.cwd(), path) || path;
  io.stdout.write(
    `\n${results.length} case(s), ${trialCount} trial(s): ${passed} passed, ${results.length - passed} failed${shard ? ` (shard ${shard.index}/${shard.count})` : ""}\n` +
      `Reports: ${[files.latest, files.junit, files.html]
        .filter(Boolean)
        .map((file) => shown(file as string))
        .join(", ")}\n`,
  );
  return result.passed ? EXIT.passed : EXIT.failed;
}

/** A variants run: each variant's table, then the comparison, and the files. */
function reportVariants(
  result: VariantsResult,
  written: Pick<
    NonNullable<Parameters<typeof writeReports>[1]>,
    "dir" | "startedAt" | "includeRuns" | "meta"
  >,
  io: CommandIo,
): number {
  const shown = (path: string) => relative(process.cwd(), path) || path;
  for (const run of result.runs) {
    const gated = run.variant.mustPass !== false;
    io.stdout.write(`${run.variant.name}${gated ? "" : " (baseline, not gated)"}:\n`);
    io.stdout.write(`${formatCasesTable(run.outcomes.map((outcome) => outcome.result))}\n`);
    for (const outcome of gated ? run.outcomes : []) {
      if (outcome.message) io.stdout.write(`\n${outcome.message}\n`);
    }
    io.stdout.write("\n");
  }
  const files = writeVariantReports(result, {
    dir: variantReportsDir(result.comparison.b.suite, written.dir),
  });
  // The run's report: every case of both variants (suite "<suite> › <variant>"), the comparison on top.
  const results = result.runs.flatMap((run) =>
    run.outcomes.map((outcome) => ({
      ...outcome.result,
      suite: variantSuite(outcome.result.suite ?? result.comparison.b.suite, run.variant),
    })),
  );
  const reports = writeReports(results, { ...written, htmlOptions: { comparison: result.comparison } }).files;
  io.stdout.write(
    formatVariantsReport(result, {
      files,
      show: shown,
      color: shouldUseColor(io.stdout as Parameters<typeof shouldUseColor>[0]),
      width: (io.stdout as { columns?: number }).columns ?? Number.POSITIVE_INFINITY,
    }),
  );
  io.stdout.write(
    `Reports: ${[reports.latest, reports.junit, reports.html]
      .filter(Boolean)
      .map((file) => shown(file as string))
      .join(", ")}\n`,
  );
  const passed = result.runs.every((run) => run.passed || run.variant.mustPass === false);
  return passed ? EXIT.passed : EXIT.failed;
}

function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: {
      trials: { type: "string" },
      model: { type: "string" },
      mode: { type: "string" },
      cassettes: { type: "string" },
      suite: { type: "string" },
      out: { type: "string" },
      concurrency: { type: "string" },
      variants: { type: "string" },
      shard: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
}

/** The scripted models of a --model module, or what is wrong with it. */
async function loadModel(path: string): Promise<CaseModels | string> {
  const file = resolve(path);
  if (!existsSync(file)) return `--model ${path}: no such file`;
  let module: { default?: unknown };
  try {
    module = (await import(pathToFileURL(file).href)) as { default?: unknown };
  } catch (error) {
    return `--model ${path}: cannot be imported: ${(error as Error).message.split("\n")[0]}`;
  }
  const models = module.default;
  if (typeof models === "function") {
    // One script for every case: a ScriptFunction takes the request, not the case.
    const script = models as ScriptFunction;
    return () => script;
  }
  if (
    models &&
    typeof models === "object" &&
    Object.values(models).every((value) => typeof value === "function")
  ) {
    return models as CaseModels;
  }
  return `--model ${path}: its default export must be a function (request) => reply, or an object of them by case id`;
}

function count(text: string | undefined, flag: string): { value?: number; problem?: string } {
  if (text === undefined) return {};
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1)
    return { problem: `${flag} must be a positive integer, got ${text}` };
  return { value };
}
