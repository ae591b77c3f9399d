import type { CaseResult } from "./case-result.js";
import { RESULTS_VERSION } from "./format-version.js";
import { gitInfo } from "./git-info.js";
import { paidFor } from "./origin.js";
import { type ResultsFile, type ResultsMeta, summarize, tallyBy } from "./results-file.js";

export type RunsIncluded = ResultsMeta["runs_included"];

export interface BuildResultsOptions {
  /** The run's name; defaults to the single suite's name, else "evals". */
  suite?: string;
  startedAt?: Date | string;
  finishedAt?: Date | string;
  /** Wall time of the run; defaults to finishedAt - startedAt, else the sum of the cases' durations. */
  durationMs?: number;
  /** Where to look for the git checkout. */
  cwd?: string;
  /** Overrides for anything in meta (git_commit, model, ...). */
  meta?: Partial<ResultsMeta>;
  env?: NodeJS.ProcessEnv;
}

/** Turns case results into a results file: meta, summary, tallies by tag and by suite, the cases. */
export function buildResults(cases: CaseResult[], options: BuildResultsOptions = {}): ResultsFile {
  const env = options.env ?? process.env;
  const suites = unique(cases.map((c) => c.suite).filter((suite): suite is string => !!suite));
  const finishedAt = toDate(options.finishedAt) ?? new Date();
  const caseTime = cases.reduce((sum, c) => sum + c.duration_ms, 0);
  const startedAt = toDate(options.startedAt) ?? new Date(finishedAt.getTime() - caseTime);
  const durationMs = options.durationMs ?? Math.max(0, finishedAt.getTime() - startedAt.getTime());
  const trials = cases.flatMap((c) => c.trials);
  const runs = trials.map((trial) => trial.run).filter((run) => run !== undefined);
  const claudeVersions = unique(runs.map((run) => run.claude_version).filter((v): v is string => !!v));
  const modelsOf = (paid: boolean) =>
    unique(
      trials
        .filter((trial) => paidFor(trial) === paid)
        .map((trial) => trial.run?.model)
        .filter((v): v is string => !!v),
    );
  const models = modelsOf(true);
  const recordedModels = modelsOf(false);
  const origins: ResultsMeta["origins"] = {};
  for (const trial of trials) if (trial.origin) origins[trial.origin] = (origins[trial.origin] ?? 0) + 1;
  const git = options.meta?.git_commit ? {} : gitInfo(options.cwd, env);
  const meta: ResultsMeta = {
    suite: options.suite ?? (suites.length === 1 ? suites[0]! : "evals"),
    suites,
    started_at: startedAt.toISOString(),
    finished_at: finishedAt.toISOString(),
    ...(git.commit ? { git_commit: git.commit } : {}),
    ...(git.branch ? { git_branch: git.branch } : {}),
    ...(git.dirty !== undefined ? { git_dirty: git.dirty } : {}),
    ...(claudeVersions.length > 0 ? { claude_version: claudeVersions.join(", ") } : {}),
    ...(models.length > 0 ? { model: models.join(", ") } : {}),
    ...(recordedModels.length > 0 ? { recorded_model: recordedModels.join(", ") } : {}),
    ...(Object.keys(origins).length > 0 ? { origins } : {}),
    node_version: process.version,
    platform: `${process.platform}-${process.arch}`,
    ci: !!env.CI && env.CI !== "false" && env.CI !== "0",
    runs_included: "all",
    ...options.meta,
  };
  return {
    version: RESULTS_VERSION,
    meta,
    summary: summarize(cases, durationMs),
    by_tag: tallyBy(cases, (c) => c.tags),
    by_suite: tallyBy(cases, (c) => [c.suite ?? meta.suite]),
    cases,
  };
}

/**
 * The results with the trials' runs kept as asked: "all", only those of cases that did not pass
 * ("failed"), or "none". Runs make a file large; failed cases are the ones worth replaying.
 */
export function withRunsIncluded(results: ResultsFile, includeRuns: RunsIncluded): ResultsFile {
  const cases = results.cases.map((c) => {
    const keep = includeRuns === "all" || (includeRuns === "failed" && c.status !== "passed");
    if (keep || c.trials.every((trial) => trial.run === undefined)) return c;
    return { ...c, trials: c.trials.map(({ run: _run, ...trial }) => trial) };
  });
  return { ...results, meta: { ...results.meta, runs_included: includeRuns }, cases };
}

function toDate(value: Date | string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}
