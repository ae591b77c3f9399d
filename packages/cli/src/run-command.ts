import { relative } from "node:path";
import { type EvalCase, formatIssue } from "@evals/evaluators";
import {
  type CaseModels,
  type CaseOutcome,
  checkRecordingKeys,
  DuplicateCaseIdError,
  formatVariantsReport,
  loadCaseList,
  loadVariants,
  MAX_TRIALS,
  type RunnerRegistry,
  runCases,
  runnableCaseProblems,
  type Variant,
  VariantsFileError,
  type VariantsResult,
  variantReportsDir,
  variantSuite,
  writeVariantReports,
} from "@evals/harness";
import {
  formatCasesTable,
  formatDuration,
  parseShard,
  type Shard,
  shardFromEnv,
  shardResultsDir,
  shouldUseColor,
  writeReports,
} from "@evals/logging";
import { apiKeyEnv, type ScriptFunction, VCR_MODES, type VcrMode } from "@evals/vcr";
import { parseCommandArgs, wholeNumberOption } from "./args.js";
import type { Command, CommandIo } from "./command.js";
import { BadInputError, SetupError, UsageError } from "./errors.js";
import { EXIT, EXIT_CODES_HELP } from "./exit-codes.js";
import { outputDirProblem } from "./output-dir.js";
import { DB_OPTION_HELP, recordWritten } from "./record-in-store.js";
import { type RunJournal, resumeJournal, startJournal } from "./run-journal.js";
import { caseApiKeyEnv, cliRunners, unavailableAgentProblem } from "./runners.js";
import { importUserModule } from "./user-module.js";

const OPTIONS_HELP = `  --trials <n>        runs per case, at most ${MAX_TRIALS} (default: each case's trials, else 1)
  --model <module>    a JavaScript module whose default export is the scripted model: a function
                      (request) => reply for every case, or { [case id]: function }
  --cassettes <dir>   the recordings' folder (default: cassettes)
  --suite <name>      the suite: recordings go to <dir>/<suite>/, keyed by suite and case id (default:
                      none: recordings go to <dir>/, keyed by the case id, so renaming a case file
                      keeps them; the reports name each case file's suite)
  --out <dir>         where the reports go (default: results); checked before any trial runs
  --concurrency <n>   trials running at once (default 1)
  --variants <file>   run every case under the two variants of a variants file (YAML, version 1)
                      and compare them: each variant's results, comparison.json and comparison.html
                      go to <out>/variants/<suite>/, and the comparison table is printed
  --shard <i/n>       run only shard i of n of the cases (default: EVALS_SHARD): every machine runs
                      its own share, keeping every run in its results (in <out>/shard-<i>-of-<n>,
                      with --variants its comparison too), and \`evals merge\` joins them
${DB_OPTION_HELP}
  -h, --help          this help`;

const RESUME_HELP = `  --resume            go on with the run in --out that was killed or crashed: its journal
                      (<out>/run-journal.jsonl, written as each trial finishes) keeps every finished
                      trial's verdict; only the trials without one run (same case files and --trials)
  --retry-errors      like --resume, and also re-run the trials whose verdict was an error (an API
                      error, a timeout: the trial could not be judged), not those that failed a rule;
                      works on a finished run too`;

export const RUN_USAGE = `Usage: evals run <cases...> [options]

Runs case files (YAML or JSON, or folders of them) with the real agent CLI each case names in
agent.cli: claude-code (Claude Code, the default), opencode (OpenCode), codex (Codex) or gemini
(Gemini CLI). Each trial runs in a fresh copy of the case's fixture, judged by the case's own rules and
expected violations. The model's side is replayed from the recordings in the cassette folder; with --model, a case without a
recording is recorded from its scripted model first (VCR_MODE=auto; on CI, strict: never recorded).
Prints one table and a summary, and writes results/latest.json, junit.xml and report.html.
With --variants, every case runs under variant A and variant B (same trials, same fixtures; each
variant its own run ids and recordings, <case id>.<variant>.<hash>.recording.json) and the two are
compared: pass rates with 95% intervals, B − A with its interval ("within noise" when it contains
0), and the deltas in turns, tool calls, tokens and time.

Options:
  --mode <mode>       record | replay | auto | strict | off (default: VCR_MODE, else strict on CI, else auto)
${OPTIONS_HELP}
${RESUME_HELP}

${EXIT_CODES_HELP}
Here: 0 every case passed, 1 a case failed, 2 bad usage, unreadable or unrunnable cases (no prompt,
too many trials, a missing fixture), an output folder that cannot be written, no executable of a
case's agent CLI, or a missing recording (after the run: the other cases still ran and are reported).`;

export const RECORD_USAGE = `Usage: evals record <cases...> [options]

Records the model's side of every case again, with the real agent CLI of the case's agent.cli
(Claude Code by default, OpenCode, Codex or Gemini CLI), into the cassette folder: from the scripted
model of --model, or, without it, from the real API that CLI speaks (ANTHROPIC_API_KEY for Claude
Code and OpenCode, OPENAI_API_KEY for Codex, GEMINI_API_KEY for Gemini CLI). Older recordings of a
case are removed. Then \`evals run\` replays them offline. The cases are judged as
they are recorded.

Options:
${OPTIONS_HELP}

${EXIT_CODES_HELP}
Here: 0 every case passed, 1 a case failed, 2 bad usage, unreadable or unrunnable cases, an output
folder that cannot be written, no executable of a case's agent CLI, or nothing to record from (no
--model entry for a case and no key of its agent's API).`;

/** `evals run`: runs cases, replayed from their recordings. */
export const runSubcommand: Command = {
  name: "run",
  summary:
    "run case files with the real agent CLI (Claude Code, OpenCode, Codex, Gemini CLI; replayed from recordings), with trials and reports",
  usage: RUN_USAGE,
  run: (args, io) => runCommand(args, io),
};

/** `evals record`: records cases' model side from a scripted model or the real API. */
export const recordSubcommand: Command = {
  name: "record",
  summary:
    "record case files' model side (from --model's scripted model, or live with the key of the agent's API)",
  usage: RECORD_USAGE,
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
  const parsed = parse(name, args);
  const { values, positionals } = parsed;
  if (positionals.length === 0) throw new UsageError("name at least one case file or folder");
  const trials =
    values.trials === undefined ? undefined : wholeNumberOption("--trials", values.trials, 1, MAX_TRIALS);
  const concurrency =
    values.concurrency === undefined ? undefined : wholeNumberOption("--concurrency", values.concurrency, 1);
  if (options.record && values.mode !== undefined) {
    throw new UsageError("evals record always records: --mode is for evals run");
  }
  let shard: Shard | undefined;
  try {
    shard = values.shard !== undefined ? parseShard(values.shard, "--shard") : shardFromEnv();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const mode = options.record ? "record" : values.mode;
  if (mode !== undefined && !(VCR_MODES as readonly string[]).includes(mode)) {
    throw new UsageError(`--mode must be one of ${VCR_MODES.join(", ")}, got ${mode}`);
  }
  const runners = await cliRunners();
  let variants: [Variant, Variant] | undefined;
  if (values.variants !== undefined) {
    try {
      variants = loadVariants(values.variants, runners);
    } catch (error) {
      if (!(error instanceof VariantsFileError)) throw error;
      throw new BadInputError(error.message);
    }
  }
  let model: LoadedModel | undefined;
  if (values.model !== undefined) {
    const loaded = await loadModel(values.model);
    if (typeof loaded === "string") {
      throw new BadInputError(loaded);
    }
    model = loaded;
  }
  const out = values.out ?? "results";
  const cases = loadRunnableCases(positionals, { trials, io, runners });
  const setupProblem =
    outputDirProblem(out) ??
    unavailableAgentProblem(cases, runners) ??
    missingModelProblem(cases, model, options.record) ??
    (values.suite ? undefined : recordingKeysProblem(cases));
  if (setupProblem) {
    throw new SetupError(setupProblem);
  }

  const resuming = values.resume === true || values["retry-errors"] === true;
  if (resuming && (options.record || variants || shard))
    throw new UsageError(
      "--resume and --retry-errors go on with a plain evals run (not record, --variants or --shard)",
    );
  let startedAt = new Date();
  let journal: RunJournal | undefined;
  if (!options.record && !variants && !shard) {
    const opened = resuming
      ? resumeJournal(out, cases, trials, values["retry-errors"] === true)
      : startJournal(out, cases, trials, startedAt);
    if (typeof opened === "string") {
      throw new BadInputError(opened);
    }
    journal = opened;
    startedAt = journal.startedAt;
    if (resuming) {
      const keptTrials = journal.pending.reduce((sum, pending) => sum + pending.keptTrials.size, 0);
      io.stdout.write(
        `Resuming the run of ${startedAt.toISOString()}: ${journal.kept.length} case(s) kept, ${journal.pending.length} to run${keptTrials > 0 ? ` (${keptTrials} of their trials kept)` : ""}\n`,
      );
    }
  }
  const ranFrom = Date.now();
  const result = await runCases(journal ? journal.pending.map((pending) => pending.evalCase) : cases, {
    ...(journal ? { onCase: journal.add, onTrial: journal.addTrial, keptTrials: keptTrialsOf(journal) } : {}),
    cassette: { dir: values.cassettes ?? "cassettes", ...(mode ? { mode: mode as VcrMode } : {}) },
    ...(model ? { model: model.models } : {}),
    ...(trials !== undefined ? { trials } : {}),
    ...(concurrency !== undefined ? { concurrency } : {}),
    ...(values.suite ? { suite: values.suite } : {}),
    runners,
    ...(variants ? { variants } : {}),
    ...(shard ? { shard } : {}),
    ...(io.rules ? { rules: io.rules } : {}),
  });
  // This command's own wall time (a resumed run's earlier part is not timed here).
  const wallTimeMs = Date.now() - ranFrom;
  // A shard writes into its own folder (its variants folder too), keeping every run and each case's place.
  const written = result.shard
    ? {
        dir: shardResultsDir(out, result.shard),
        startedAt,
        includeRuns: "all" as const,
        meta: { shard: result.shard },
      }
    : { dir: out, startedAt };
  const setup = setupProblems(result.outcomes, {
    model,
    record: options.record === true,
    keyEnv: keyEnvByCase(cases, runners),
  });
  const recording = { source: name, db: values.db } as const;
  if (result.variants) {
    const code = await reportVariants(result.variants, written, io, recording);
    throwSetupProblems(setup);
    return code;
  }
  const outcomes = journal ? withKept(journal, result.outcomes) : result.outcomes;
  const results = outcomes.map((outcome) => outcome.result);
  io.stdout.write(`${formatCasesTable(results, { wallTimeMs })}\n`);
  for (const outcome of outcomes) {
    // A case that could not run says why (and the command that fixes it) below, once.
    if (outcome.message && !outcome.setupErrors) io.stdout.write(`\n${outcome.message}\n`);
  }
  const reports = writeReports(results, written);
  const { files } = reports;
  const passed = outcomes.filter((outcome) => outcome.passed).length;
  const trialCount = results.reduce((sum, caseResult) => sum + caseResult.trials.length, 0);
  const shown = (path: string) => relative(process.cwd(), path) || path;
  io.stdout.write(
    `\n${results.length} case(s), ${trialCount} trial(s): ${passed} passed, ${results.length - passed} failed${shard ? ` (shard ${shard.index}/${shard.count})` : ""} in ${formatDuration(wallTimeMs)}\n` +
      `Reports: ${[files.latest, files.junit, files.html]
        .filter(Boolean)
        .map((file) => shown(file as string))
        .join(", ")}\n`,
  );
  await recordWritten(reports, recording.source, recording.db, io);
  journal?.complete();
  throwSetupProblems(setup);
  return passed === outcomes.length ? EXIT.passed : EXIT.failed;
}

/** Each pending case's trials decided before the run was stopped. */
function keptTrialsOf(journal: RunJournal) {
  const byCase = new Map(journal.pending.map((pending) => [pending.evalCase, pending.keptTrials]));
  return (evalCase: EvalCase) => byCase.get(evalCase);
}

/** The run's outcomes in case order: those the journal kept from before, and those just run. */
function withKept(journal: RunJournal, ran: CaseOutcome[]): CaseOutcome[] {
  // A kept case's agent runs stay in their run folders: the journal keeps its result, not its runs.
  const byPosition = new Map<number, CaseOutcome>(
    journal.kept.map(({ passed, message, result, position }) => [
      position,
      { passed, result, runs: [], ...(message !== undefined ? { message } : {}) },
    ]),
  );
  for (const [i, { position }] of journal.pending.entries()) byPosition.set(position, ran[i]!);
  return [...byPosition.entries()].sort(([a], [b]) => a - b).map(([, outcome]) => outcome);
}

/** A variants run: each variant's table, then the comparison, and the files. */
async function reportVariants(
  result: VariantsResult,
  written: Pick<
    NonNullable<Parameters<typeof writeReports>[1]>,
    "dir" | "startedAt" | "includeRuns" | "meta"
  >,
  io: CommandIo,
  recording: { source: "run" | "record"; db: string | undefined },
): Promise<number> {
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
  const runReports = writeReports(results, { ...written, htmlOptions: { comparison: result.comparison } });
  const reports = runReports.files;
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
  await recordWritten(runReports, recording.source, recording.db, io);
  const passed = result.runs.every((run) => run.passed || run.variant.mustPass === false);
  return passed ? EXIT.passed : EXIT.failed;
}

function parse(name: string, args: string[]) {
  return parseCommandArgs(name, args, {
    trials: { type: "string" },
    model: { type: "string" },
    mode: { type: "string" },
    cassettes: { type: "string" },
    suite: { type: "string" },
    out: { type: "string" },
    concurrency: { type: "string" },
    variants: { type: "string" },
    shard: { type: "string" },
    db: { type: "string" },
    resume: { type: "boolean" },
    "retry-errors": { type: "boolean" },
  });
}

/** A --model module: its scripted models, and the case ids it has one for (all, for one function). */
interface LoadedModel {
  path: string;
  models: CaseModels;
  ids?: string[];
}

/** The scripted models of a --model module, or what is wrong with it. */
async function loadModel(path: string): Promise<LoadedModel | string> {
  const imported = await importUserModule(path, "--model");
  if ("error" in imported) return imported.error;
  const models = imported.exports.default;
  if (typeof models === "function") {
    // One script for every case: a ScriptFunction takes the request, not the case.
    const script = models as ScriptFunction;
    return { path, models: () => script };
  }
  if (
    models &&
    typeof models === "object" &&
    Object.values(models).every((value) => typeof value === "function")
  ) {
    return { path, models: models as CaseModels, ids: Object.keys(models) };
  }
  return `--model ${path}: its default export must be a function (request) => reply, or an object of them by case id`;
}

/**
 * The cases of the files given, when every one can run: else the problems (file, line, field) on
 * stderr and undefined. `trials` (--trials) replaces each case's own.
 */
function loadRunnableCases(
  paths: string[],
  options: { trials: number | undefined; io: CommandIo; runners: RunnerRegistry },
): EvalCase[] {
  let cases: EvalCase[];
  try {
    cases = loadCaseList(paths, {
      runners: options.runners,
      ...(options.io.rules ? { rules: options.io.rules } : {}),
    });
  } catch (error) {
    // A case file that cannot be read or is invalid, two cases with one id: what validate reports.
    throw new BadInputError(
      `${(error as Error).message}\n(\`npx evals validate ${paths.join(" ")}\` checks the case files)`,
    );
  }
  const problems = cases
    .flatMap((evalCase) => runnableCaseProblems(evalCase))
    .filter((problem) => !(options.trials !== undefined && problem.field === "trials"));
  if (problems.length === 0) return cases;
  throw new BadInputError(
    [
      `${problems.length} problem${problems.length === 1 ? "" : "s"} in the case files; nothing ran (\`npx evals validate ${paths.join(" ")}\` checks them)`,
      ...problems.map(formatIssue),
    ].join("\n"),
  );
}

/** `evals record --model <object>` without an entry for a case: nothing to record that case from. */
function missingModelProblem(
  cases: EvalCase[],
  model: LoadedModel | undefined,
  record: boolean | undefined,
): string | undefined {
  if (!record || !model?.ids) return undefined;
  const missing = [...new Set(cases.map((evalCase) => evalCase.id))].filter((id) => !model.ids!.includes(id));
  if (missing.length === 0) return undefined;
  return noModelEntry(missing, model);
}

function noModelEntry(ids: string[], model: LoadedModel): string {
  return `--model ${model.path} has no scripted model for case id${ids.length === 1 ? "" : "s"} ${ids.map((id) => JSON.stringify(id)).join(", ")} (its default export has ${model.ids?.length ? model.ids.map((id) => JSON.stringify(id)).join(", ") : "no entry"}): add one keyed by the case id`;
}

/** Why cases could not run because of the setup (see CaseOutcome's setupErrors), one line each. */
function setupProblems(
  outcomes: CaseOutcome[],
  context: { model: LoadedModel | undefined; record: boolean; keyEnv: (caseId: string) => string },
): string[] {
  const problems = new Set<string>();
  for (const outcome of outcomes) {
    const { id } = outcome.result;
    const file = outcome.result.file ? shownPath(outcome.result.file) : "<cases>";
    for (const error of outcome.setupErrors ?? []) {
      if (error.name === "CassetteMissingError") {
        const {
          file: recording,
          problem,
          others = [],
          differences = [],
        } = error as {
          file?: string;
          problem?: string;
          others?: string[];
          differences?: Array<string | undefined>;
        };
        // The recordings of this case for another prompt or options: what differs in each.
        const stale = others
          .map(
            (other, index) =>
              `; ${shownPath(other)} is this case's, but ${differences[index] ?? "recorded for another prompt or options"}`,
          )
          .join("");
        const found = recording
          ? problem
            ? `: ${shownPath(recording)} is there, but ${problem}`
            : `: expected ${shownPath(recording)}${stale}`
          : "";
        problems.add(
          `no ${problem ? "usable " : ""}recording for case ${JSON.stringify(id)}${found}. Record it: npx evals record ${file} --model <your scripted model module> (or with ${context.keyEnv(id)} set, from the real API), then commit it`,
        );
      } else if (error.name === "NoModelToRecordError") {
        problems.add(
          context.model
            ? noModelEntry([id], context.model)
            : `nothing to record case ${JSON.stringify(id)} from: give a scripted model (npx evals ${context.record ? "record" : "run"} ${file} --model models.mjs) or set ${(error as { keyEnv?: string }).keyEnv ?? context.keyEnv(id)} to record the real API`,
        );
      } else problems.add(error.message);
    }
  }
  return [...problems];
}

/** Per case id, the env var of the key that records the real API its agent speaks. */
function keyEnvByCase(cases: EvalCase[], runners: RunnerRegistry): (caseId: string) => string {
  const byId = new Map(cases.map((evalCase) => [evalCase.id, caseApiKeyEnv(evalCase, runners)]));
  return (caseId) => byId.get(caseId) ?? apiKeyEnv();
}

/** Two cases (without --suite) whose recordings would be one file: the message, else undefined. */
function recordingKeysProblem(cases: EvalCase[]): string | undefined {
  try {
    checkRecordingKeys(cases);
    return undefined;
  } catch (error) {
    if (error instanceof DuplicateCaseIdError) return error.message;
    throw error;
  }
}

/**
 * The setup problems found while running (after the reports are written): one SetupError, each
 * problem on a line of its own with its fix, when there are any.
 */
function throwSetupProblems(problems: string[]): void {
  if (problems.length === 0) return;
  throw new SetupError(
    problems.length === 1
      ? problems[0]!
      : `${problems.length} setup problems kept cases from running:\n${problems.map((problem) => `- ${problem}`).join("\n")}`,
  );
}

function shownPath(path: string): string {
  const near = relative(process.cwd(), path);
  return near && !near.startsWith("..") ? near : path;
}
