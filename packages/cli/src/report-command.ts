import { spawn } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import {
  createRedactor,
  isRunFolder,
  type RunFolder,
  type RunFolderCase,
  readRunFolder,
  runSummary,
} from "@evals/core";
import { caseWithOutcome, evaluate, parseCase, type RuleRegistry } from "@evals/evaluators";
import {
  type CaseResult,
  type CaseViolation,
  caseResult,
  type ResultsFile,
  ResultsFileError,
  readResults,
  renderHtmlReport,
  renderJunit,
  type TrialResult,
  writeFileAtomic,
  writeReports,
} from "@evals/logging";
import { parseCommandArgs } from "./args.js";
import type { Command, CommandIo } from "./command.js";
import { BadInputError, UnreadableFileError, UsageError } from "./errors.js";
import { EXIT, EXIT_CODES_HELP } from "./exit-codes.js";
import { NOT_A_RESULTS_FILE, resultsFileProblem } from "./input-file.js";
import { outputDirProblem } from "./output-dir.js";

export const REPORT_USAGE = `Usage: evals report <results.json | test-output folder | run folder> [options]

Writes the reports of an eval run with @evals/logging's writers:
- from a results file (results/latest.json, or one under results/history/): junit.xml and
  report.html beside it (or in --out, with the JSON too);
- from a test-output/ folder (or one run folder in it) that describeEval wrote: the case and the
  verdict each trial's run folder holds, grouped into cases, written as latest.json, the history
  file, junit.xml and report.html in --out (default results/). The violations of a case of
  @evals/evaluators are found again from the stored run (run folders keep the scores, not them).

Options:
  --out <dir>     where to write (default: beside the results file; results/ for test-output)
  --suite <name>  the run's name in the reports
  --open          open report.html in the browser (open, xdg-open or start)
  -h, --help      this help

${EXIT_CODES_HELP}
Here: 0 the reports are written, 2 the input cannot be read (not a regular file or folder, over 256
MiB, or no run the harness graded) or the output folder cannot be written (checked first).`;

/** `evals report`: the JSON, JUnit and HTML reports from a results file or from run folders. */
export const report: Command = {
  name: "report",
  summary: "write (and --open) the JSON, JUnit and HTML reports from results.json or test-output/",
  usage: REPORT_USAGE,
  run: async (args, io) => {
    const parsed = parseCommandArgs("report", args, {
      out: { type: "string" },
      suite: { type: "string" },
      open: { type: "boolean" },
    });
    const { values, positionals } = parsed;
    const [target, ...extra] = positionals;
    if (target === undefined)
      throw new UsageError("which results? give a results.json or a test-output folder");
    if (extra.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(extra[0])}`);
    const isFolder = statSync(target, { throwIfNoEntry: false })?.isDirectory() === true;
    const problem =
      (isFolder ? undefined : resultsFileProblem(target)) ??
      (values.out !== undefined || isFolder ? outputDirProblem(values.out ?? "results") : undefined);
    if (problem) {
      throw new BadInputError(problem);
    }
    const written = isFolder
      ? await fromRunFolders(target, { out: values.out ?? "results", suite: values.suite }, io)
      : fromResultsFile(target, { out: values.out, suite: values.suite });
    printWritten(written.results, written.files, io);
    if (values.open && written.files.html) await openInBrowser(written.files.html, io);
    return EXIT.passed;
  },
};

interface Written {
  results: ResultsFile;
  files: { latest?: string; history?: string; junit?: string; html?: string };
}

/** JUnit and HTML from a results file (and the JSON too when it goes elsewhere). */
function fromResultsFile(
  file: string,
  options: { out: string | undefined; suite: string | undefined },
): Written {
  let results: ResultsFile;
  try {
    // A results file of an older evals may still hold secrets: the reports made from it do not.
    results = createRedactor().value(readResults(file));
  } catch (error) {
    if (!(error instanceof ResultsFileError)) throw error;
    throw new UnreadableFileError(file, `${error.message}\n${NOT_A_RESULTS_FILE}`);
  }
  if (options.suite) results = { ...results, meta: { ...results.meta, suite: options.suite } };
  const dir = resolve(options.out ?? dirname(file));
  const files: Written["files"] = {};
  if (options.out !== undefined && dir !== resolve(dirname(file))) {
    // Through writeReports, so the JSON files are the ones a run would have written.
    const { files: all } = writeReports(results.cases, {
      dir,
      suite: results.meta.suite,
      startedAt: new Date(results.meta.started_at),
      finishedAt: new Date(results.meta.finished_at),
      durationMs: results.summary.duration_ms,
      includeRuns: results.meta.runs_included,
    });
    return { results, files: all };
  }
  files.junit = join(dir, "junit.xml");
  writeFileAtomic(files.junit, renderJunit(results));
  files.html = join(dir, "report.html");
  writeFileAtomic(files.html, renderHtmlReport(results));
  return { results, files };
}

/** The run folders in `dir` (or `dir` itself, when it is one). */
function runFoldersIn(dir: string): string[] {
  if (isRunFolder(dir)) return [dir];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && isRunFolder(join(dir, entry.name)))
    .map((entry) => join(dir, entry.name))
    .sort();
}

/** A trial's latest run folder, its case and verdict, and when the harness wrote them. */
interface LatestTrial {
  folder: RunFolder;
  case: RunFolderCase;
  at: string;
}

/**
 * The reports of the trials describeEval ran, from their run folders. test-output/ keeps the folders
 * of earlier runs too: each trial of a case is its latest run folder (by the manifest's time), and
 * only the trials the latest run of the case had.
 */
async function fromRunFolders(
  dir: string,
  options: { out: string; suite: string | undefined },
  io: CommandIo,
): Promise<Written> {
  const folders = runFoldersIn(dir);
  const latest = new Map<string, LatestTrial>();
  let skipped = 0;
  let older = 0;
  for (const path of folders) {
    let folder: RunFolder;
    try {
      folder = await readRunFolder(path);
    } catch (error) {
      io.stderr.write(`evals report: warning: skipped ${path}: ${(error as Error).message}\n`);
      skipped++;
      continue;
    }
    const stored = folder.manifest?.case;
    if (!stored?.grading) {
      skipped++;
      continue;
    }
    const key = JSON.stringify([stored.suite, stored.id, stored.trial]);
    const at = folder.manifest?.written_at ?? "";
    const seen = latest.get(key);
    if (seen) older++;
    if (!seen || seen.at < at) latest.set(key, { folder, case: stored, at });
  }
  if (latest.size === 0) {
    throw new BadInputError(
      `${dir} holds no run folder with a case and a verdict (${folders.length} run folder${folders.length === 1 ? "" : "s"}; describeEval stores them in test-output/<run id>/run-folder.json)`,
    );
  }
  if (skipped > 0)
    io.stderr.write(
      `evals report: ${skipped} run folder${skipped === 1 ? "" : "s"} without a case the harness graded left out\n`,
    );
  if (older > 0)
    io.stderr.write(
      `evals report: ${older} older run folder${older === 1 ? "" : "s"} of the same trials left out\n`,
    );
  const byCase = new Map<string, LatestTrial[]>();
  for (const item of latest.values()) {
    const key = JSON.stringify([item.case.suite, item.case.id]);
    byCase.set(key, [...(byCase.get(key) ?? []), item]);
  }
  const results: CaseResult[] = [];
  for (const items of byCase.values()) {
    // The trial count of the case's latest run: trials numbered beyond it are an older run's.
    const newest = items.reduce((a, b) => (b.at > a.at ? b : a));
    const current = items.filter((item) => item.case.trial < newest.case.trials);
    current.sort((a, b) => a.case.trial - b.case.trial);
    const trials = await Promise.all(current.map((item) => trialOf(item.folder, io.rules)));
    const { id, name, suite } = newest.case;
    results.push(caseResult({ id, name: name ?? id, suite, trials }));
  }
  return writeReports(results, {
    dir: resolve(options.out),
    ...(options.suite ? { suite: options.suite } : {}),
  });
}

/** One trial as the harness judged it: its stored verdict, its run, and the run's violations. */
async function trialOf(folder: RunFolder, rules: RuleRegistry | undefined): Promise<TrialResult> {
  const stored = folder.manifest?.case;
  const verdict = stored?.grading?.verdict;
  const trial = stored?.trial ?? 0;
  const cost = runSummary(folder.run).cost_usd;
  return {
    trial,
    status: verdict?.status ?? "error",
    scores: verdict?.scores ?? [],
    violations: stored ? await violationsOf(folder, trial, rules) : [],
    ...(folder.result?.duration_ms !== undefined ? { duration_ms: folder.result.duration_ms } : {}),
    ...(cost !== undefined ? { cost_usd: cost } : {}),
    run_id: folder.runId,
    output_dir: folder.dir,
    origin: folder.result?.origin ?? "stored",
    run: folder.run,
    ...(verdict?.error ? { error: verdict.error } : {}),
  };
}

/**
 * The violations of the scorers the harness ran, for a case of @evals/evaluators (found again from
 * the stored run: evaluators are pure functions of it); none for other cases.
 */
async function violationsOf(
  folder: RunFolder,
  trial: number,
  rules: RuleRegistry | undefined,
): Promise<CaseViolation[]> {
  const stored = folder.manifest?.case;
  const grading = stored?.grading;
  if (!stored || !grading) return [];
  let evalCase: ReturnType<typeof parseCase>;
  try {
    evalCase = parseCase(stored.value, undefined, rules);
  } catch {
    return [];
  }
  const ran = new Set(grading.verdict.scores.map((score) => score.scorer));
  const evaluation = await evaluate(
    folder.result ?? folder.run,
    caseWithOutcome(evalCase, grading.outcome),
    rules,
  );
  return evaluation.verdicts
    .filter((verdict) => ran.has(verdict.evaluator))
    .flatMap((verdict) =>
      verdict.violations.map((violation) => ({ ...violation, scorer: verdict.evaluator, trial })),
    );
}

function printWritten(results: ResultsFile, files: Written["files"], io: CommandIo): void {
  const show = (file: string) => {
    const near = relative(process.cwd(), file);
    return near && !near.startsWith("..") ? near : file;
  };
  const { summary } = results;
  io.stdout.write(
    `${summary.total} case${summary.total === 1 ? "" : "s"} (${summary.passed} passed, ${summary.failed} failed, ${summary.errored} errored, ${summary.skipped} skipped), ${summary.trials} trial${summary.trials === 1 ? "" : "s"}\n`,
  );
  if (files.latest) io.stdout.write(`results ${show(files.latest)}\n`);
  if (files.junit) io.stdout.write(`junit   ${show(files.junit)}\n`);
  if (files.html) io.stdout.write(`report  ${show(files.html)}  (open it in a browser)\n`);
}

/** Opens the file with the platform's opener; says so (and does not fail) when there is none. */
async function openInBrowser(file: string, io: CommandIo): Promise<void> {
  const [command, args] =
    process.platform === "darwin"
      ? ["open", [file]]
      : process.platform === "win32"
        ? ["cmd", ["/c", "start", "", file]]
        : ["xdg-open", [file]];
  const started = await new Promise<string | undefined>((done) => {
    const child = spawn(command, args as string[], { detached: true, stdio: "ignore" });
    child.once("spawn", () => {
      child.unref();
      done(undefined);
    });
    child.once("error", (error) => done(error.message));
  });
  if (started !== undefined)
    io.stderr.write(
      `evals report: could not open the report with ${command} (${started}): open ${file} in a browser\n`,
    );
}
