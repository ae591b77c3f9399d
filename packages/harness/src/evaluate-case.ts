import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  type AgentRunResult,
  createRedactor,
  outputRoot as defaultOutputRoot,
  newRunId,
  RUN_FOLDER_FILES,
  type Run,
  type RunFolderCase,
  type RunFolderManifest,
  readManifest,
  runFolderPath,
  runSummary,
  type Scorer,
  writeRunFolder,
} from "@evals/core";
import { safeName } from "@evals/core/process";
import {
  type ExpectedOutcome,
  expectedOutcomeOf,
  judgeOutcome,
  OUTCOME_EVALUATOR,
  outcomeMatches,
  outcomeScorer,
} from "@evals/evaluators";
import {
  type CaseResult,
  type CaseViolation,
  caseResult,
  type Score,
  type Shard,
  type TrialResult,
  trialStatistics,
} from "@evals/logging";
import { caseFailureMessage, type TrialReport } from "./failure-message.js";
import { exportCaseToOtel, type OtelOption, otelExportOn } from "./otel-export.js";
import { checkPassRule, type PassRule, satisfiesPassRule } from "./pass-rule.js";
import type { AgentChoice, RunnerRegistry } from "./runner-registry.js";
import { scoreTrial, type Threshold, type TrialScores, thresholdFor } from "./scoring.js";
import {
  type CaseModel,
  type CassetteOption,
  runCleanups,
  runTrial,
  type TrialContext,
  type TrialVariant,
  type WorktreeOption,
} from "./trial.js";

/** Fields describeEval reads from a case when they are there; anything else is the case's own. */
export interface EvalCaseFields {
  /** The test's name (default: the input, shortened). */
  name?: string;
  /** A stable id for reports and cassettes (default: from the name). */
  id?: string;
  /** What the task is given (default: the whole case). */
  input?: unknown;
  description?: string;
  tags?: string[];
  /** Skip this case (a string says why). */
  skip?: boolean | string;
  /** How the run must end (default "success"): see ExpectedOutcome of @evals/evaluators. */
  outcome?: ExpectedOutcome;
}

/** The task's first argument: the case's `input` when it has one, else the case itself. */
export type CaseInput<Case> = Case extends { input: infer Input } ? Input : Case;

export type EvalTask<Case> = (
  input: CaseInput<Case>,
  context: TrialContext<Case>,
) => Promise<AgentRunResult | Run> | AgentRunResult | Run;

/** How one case is run and judged. */
export interface CaseSettings<Case> {
  /** The describeEval suite's name. */
  suite: string;
  task: EvalTask<Case>;
  /** The scorers, or a function that gives each case its own (e.g. `scorersForCase`). */
  scorers: CaseScorers<Case>;
  threshold?: Threshold;
  /** How many independent runs of the case (default 1). */
  trials?: number;
  /** When a case with several trials passes (default "all"). */
  passRule?: PassRule;
  /** Per trial, in ms: the agent is stopped then, and the trial errors. */
  timeout?: number;
  /**
   * How every case's run must end unless the case says otherwise (its `outcome`); default "success":
   * an API error, max turns, an error result, a kill, a nonzero exit, no result line or a timeout
   * fail the trial. Judged by an "outcome" scorer added in front of the others (unless one is there;
   * "any" adds none).
   */
  outcome?: ExpectedOutcome;
  /** Where runs write `test-output/<run id>/` (default: EVALS_OUTPUT_DIR, else the cwd). */
  outputRoot?: string;
  worktree?: WorktreeOption;
  cassette?: CassetteOption;
  /**
   * The model of each trial: a ScriptFunction or ModelSource for the case (a fresh one per run).
   * With a cassette, it is what gets recorded; a replay does not call it.
   */
  model?: CaseModel<Case>;
  /** Which agent runs the trials: a runner, or the `cli` of one in `runners` (default: the registry's default). */
  agent?: AgentChoice;
  /** The agent runners the suite and its cases' `agent.cli` name. */
  runners?: RunnerRegistry;
  /** The variant the trials run under (its name goes into run ids and recordings); see runCases' `variants`. */
  variant?: TrialVariant;
  /** How long a trial that ignores its abort signal gets after its timeout (default 15000 ms). */
  trialGraceMs?: number;
  /**
   * This machine's shard, when the run is split across machines: its trials' run ids (and so their
   * output folders and worktrees) name it, e.g. `<suite>-<case>-t1-s2of3-<time>-<random>`.
   */
  shard?: Shard;
  /**
   * Export each decided case as an OpenTelemetry trace (@evals/otel, which must be installed): true
   * or settings turn it on, false off; default EVALS_OTEL=1.
   */
  otel?: OtelOption;
  /** Runs trials (all of the suite's) through the suite's limiter. */
  schedule?: <T>(task: () => Promise<T>) => Promise<T>;
}

/** One list of scorers for every case, or a function that gives each case its own. */
export type CaseScorers<Case> = Scorer<Case>[] | ((caseValue: Case) => Scorer<Case>[]);

/** A case's verdict: the result reporters read, and the message when it failed. */
export interface CaseOutcome {
  passed: boolean;
  result: CaseResult;
  /** Why the case failed (scorers, scores, thresholds, violations); undefined when it passed. */
  message?: string;
  /** The agent run of every trial, in order (undefined for a trial that errored before it had one). */
  runs: (AgentRunResult | undefined)[];
  /**
   * The errors of trials that could not run because the setup is wrong, not the agent: a recording
   * missing in strict mode (CassetteMissingError), no model to record from (NoModelToRecordError),
   * no executable of the case's agent CLI (each runner's own: ClaudeNotFoundError,
   * OpenCodeNotFoundError, CodexNotFoundError, GeminiNotFoundError), or one of another version than
   * its runner's (CodexVersionError, GeminiVersionError). `evals run` exits 2 for them.
   */
  setupErrors?: Error[];
}

/** The names of the errors that say a trial's setup is wrong (see CaseOutcome's setupErrors). */
const SETUP_ERRORS = new Set([
  "CassetteMissingError",
  "NoModelToRecordError",
  // By name: the engine depends on no runner package, and each runner names its own.
  "ClaudeNotFoundError",
  "OpenCodeNotFoundError",
  "CodexNotFoundError",
  "GeminiNotFoundError",
  "CodexVersionError",
  "GeminiVersionError",
]);

/** Time a trial gets, beyond its timeout, to stop its agent and wind down before it is abandoned. */
const TRIAL_GRACE_MS = 15_000;

/**
 * Runs one case `trials` times (each trial a fresh run with its own run id), scores every trial,
 * and decides the case by the pass rule. Never throws for what the agent or a scorer did: that is in
 * the outcome.
 */
export async function evaluateCase<Case>(
  caseValue: Case,
  index: number,
  settings: CaseSettings<NoInfer<Case>>,
  options: {
    signal?: AbortSignal;
    file?: string;
    name?: string;
    /** Trials decided before (a resumed run), by trial number: kept as they are, not run again. */
    keptTrials?: ReadonlyMap<number, TrialResult>;
    /** Called with each trial's result (secret-free) as soon as it has its verdict. */
    onTrial?: (trial: TrialResult) => void;
  } = {},
): Promise<CaseOutcome> {
  const trials = settings.trials ?? 1;
  if (!Number.isInteger(trials) || trials < 1)
    throw new Error(`describeEval: trials must be a positive integer, got ${trials}`);
  const passRule = settings.passRule ?? "all";
  checkPassRule(passRule);
  const name = options.name ?? caseName(caseValue, index);
  const id = caseId(caseValue, name);
  const fields = caseValue as EvalCaseFields;
  const input = (
    fields && typeof fields === "object" && "input" in fields ? fields.input : caseValue
  ) as CaseInput<Case>;
  const outputRoot = settings.outputRoot ?? defaultOutputRoot();
  const schedule = settings.schedule ?? ((task) => task());
  const expectedOutcome = expectedOutcomeOf(caseValue) ?? settings.outcome ?? "success";
  const timeoutExpected = outcomeMatches("timeout", expectedOutcome);
  // The run's outcome is judged (unless any is accepted): by the suite's own "outcome" scorer, else
  // by ours, first.
  const caseScorers = typeof settings.scorers === "function" ? settings.scorers(caseValue) : settings.scorers;
  if (!Array.isArray(caseScorers)) {
    throw new Error(`describeEval: scorers for case ${JSON.stringify(id)} must be a list of scorers`);
  }
  const scorers =
    expectedOutcome === "any" || caseScorers.some((scorer) => scorer.name === OUTCOME_EVALUATOR)
      ? caseScorers
      : [outcomeScorer({ expected: expectedOutcome }), ...caseScorers];

  const runOne = async (trial: number) => {
    const variant = settings.variant ? `-${safeName(settings.variant.name).slice(0, 20)}` : "";
    const shard = settings.shard ? `-s${settings.shard.index}of${settings.shard.count}` : "";
    const runId = newRunId(
      `${safeName(settings.suite).slice(0, 30)}-${id.slice(0, 40)}${variant}-t${trial + 1}${shard}`,
    );
    const trialStarted = performance.now();
    const startedAt = Date.now();
    // Run once the trial's scorers are done: e.g. the removal of the folder its agent worked in.
    const cleanups: (() => void | Promise<void>)[] = [];
    const controller = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
    let result: AgentRunResult | undefined;
    let error: string | undefined;
    let setupError: Error | undefined;
    let timer: NodeJS.Timeout | undefined;
    // With a worktree, scorers run before it is removed, so outcome graders see the agent's files.
    let scoredInWorktree: TrialScores | undefined;
    /** Set when the trial's own timeout stopped it (the agent then sees an abort, not its timeout). */
    let trialTimedOut = false;
    const timedOutIfStopped = (trialResult: AgentRunResult): AgentRunResult =>
      trialTimedOut && !trialResult.timed_out
        ? ({
            ...trialResult,
            timed_out: true,
            error: `the run timed out after ${settings.timeout} ms and was killed`,
          } as AgentRunResult)
        : trialResult;
    const scoreInWorktree = async (ran: AgentRunResult) => {
      const trialResult = timedOutIfStopped(ran);
      if (trialResult.timed_out && !timeoutExpected) return;
      scoredInWorktree = await scoreTrial(
        scorers,
        { result: trialResult, case: caseValue, expectedOutcome },
        settings.threshold,
      );
    };
    try {
      const running = runTrial(
        {
          suite: settings.suite,
          caseId: id,
          caseValue,
          trial,
          trials,
          runId,
          signal,
          outputRoot,
          ...(settings.timeout !== undefined ? { timeoutMs: settings.timeout } : {}),
          ...(settings.worktree ? { worktree: settings.worktree, whileInWorktree: scoreInWorktree } : {}),
          ...(settings.cassette ? { cassette: settings.cassette } : {}),
          ...(settings.model ? { model: settings.model } : {}),
          ...(settings.agent ? { agent: settings.agent } : {}),
          ...(settings.runners ? { runners: settings.runners } : {}),
          ...(settings.variant ? { variant: settings.variant } : {}),
          afterScoring: (cleanup) => cleanups.push(cleanup),
        },
        (context) => settings.task(input, context),
      );
      if (settings.timeout === undefined) result = await running;
      else {
        // A task that ignores the signal is abandoned once its time and a grace period are up.
        const timeout = settings.timeout;
        const expired = new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            trialTimedOut = true;
            controller.abort();
            timer = setTimeout(
              () => reject(new Error(`the trial did not finish within its timeout of ${timeout} ms`)),
              settings.trialGraceMs ?? TRIAL_GRACE_MS,
            );
          }, timeout);
        });
        running.catch(() => undefined);
        result = await Promise.race([running, expired]);
      }
      result = timedOutIfStopped(result);
      if (result.timed_out && !timeoutExpected) error = runErrorOf(result) ?? "the agent's run timed out";
      // A runner that knows its record of the run is partial (a capture that lost events) says so:
      // grading what is left could pass a run whose missing part broke a rule.
      else error = incompleteRunOf(result);
    } catch (caught) {
      error = caught instanceof Error ? caught.message : String(caught);
      if (caught instanceof Error && SETUP_ERRORS.has(caught.name)) setupError = caught;
      // A replay that diverged from its recording still ran: keep its run for the reports.
      result ??= divergedRunOf(caught);
    } finally {
      if (timer) clearTimeout(timer);
    }
    let scores: TrialScores | undefined;
    try {
      scores =
        result && !error
          ? (scoredInWorktree ??
            (await scoreTrial(scorers, { result, case: caseValue, expectedOutcome }, settings.threshold)))
          : undefined;
    } finally {
      await runCleanups(cleanups);
    }
    // A task that threw after its agent ran leaves the agent's folder: the error goes there too.
    const folder = result?.output_dir ?? runFolderPath(runId, outputRoot);
    recordCaseInRunFolder(folder, {
      suite: settings.suite,
      id,
      name,
      trial,
      trials,
      value: caseValue,
      grading: {
        ...(settings.threshold !== undefined ? { threshold: settings.threshold } : {}),
        outcome: expectedOutcome,
        scorers: caseScorers.map((scorer) => {
          const needed = thresholdFor(scorer, settings.threshold);
          return { name: scorer.name, ...(needed !== undefined ? { threshold: needed } : {}) };
        }),
        verdict: {
          status: error || !scores ? "error" : scores.passed ? "passed" : "failed",
          scores: (scores?.verdicts ?? []).map((verdict) => ({
            scorer: verdict.scorer,
            score: verdict.score,
            passed: verdict.passed,
            ...(verdict.threshold !== undefined ? { threshold: verdict.threshold } : {}),
          })),
          ...(error ? { error } : {}),
        },
      },
    });
    return {
      trial,
      runId,
      result,
      error,
      ...(setupError ? { setupError } : {}),
      scores,
      startedAt,
      durationMs: performance.now() - trialStarted,
    };
  };

  // Secret-free at its source: the reports, the OTel export and a vitest reporter (in another
  // process, which never saw the run's env) all take it from here.
  const redactor = createRedactor();
  const done = await Promise.all(
    Array.from({ length: trials }, async (_, trial): Promise<TrialRun> => {
      const kept = options.keptTrials?.get(trial);
      if (kept) return keptTrialRun(kept);
      const ran = await schedule(() => runOne(trial));
      options.onTrial?.(redactor.value(trialResultOf(ran)));
      return ran;
    }),
  );
  const trialResults: TrialResult[] = done.map((trial) => trialResultOf(trial));
  const passedCount = trialResults.filter((trial) => trial.status === "passed").length;
  const passed = satisfiesPassRule(passRule, passedCount, trials);
  const stats = trialStatistics(trialResults);
  const reports: TrialReport[] = done.map((trial, i) => reportOf(trial, trialResults[i]!.status));
  const message = passed
    ? undefined
    : caseFailureMessage({ caseName: name, passRule, stats, trials: reports });
  const everyTrialErrored = trialResults.every((trial) => trial.status === "error");
  const result = redactor.value(
    caseResult({
      id,
      name,
      suite: settings.suite,
      ...(options.file ? { file: options.file } : {}),
      ...(typeof fields?.description === "string" ? { description: fields.description } : {}),
      tags: Array.isArray(fields?.tags) ? fields.tags.map(String) : [],
      status: passed ? "passed" : everyTrialErrored ? "error" : "failed",
      trials: trialResults,
      stats,
      // Its own trials' time: waiting for the suite's other cases (the shared limiter) is not this case's.
      duration_ms: Math.round(done.reduce((sum, trial) => sum + trial.durationMs, 0)),
      ...(message ? { error: message } : {}),
    }),
  );
  if (otelExportOn(settings.otel)) {
    await exportCaseToOtel(result, settings.otel, {
      endTime: Date.now(),
      trialStartTimes: done.map((trial) => trial.startedAt),
    });
  }
  const setupErrors = done.flatMap((trial) => (trial.setupError ? [trial.setupError] : []));
  return {
    passed,
    result,
    ...(message ? { message: redactor.text(message) } : {}),
    runs: done.map((trial) => trial.result),
    ...(setupErrors.length > 0 ? { setupErrors } : {}),
  };
}

interface TrialRun {
  trial: number;
  runId: string;
  result: AgentRunResult | undefined;
  error: string | undefined;
  /** The error, when it says the setup is wrong (see SETUP_ERRORS). */
  setupError?: Error;
  scores: TrialScores | undefined;
  /** When the trial started (epoch ms). */
  startedAt: number;
  durationMs: number;
  /** The result of a trial decided before (a resumed run): it was not run again. */
  kept?: TrialResult;
}

/** A trial decided before, as a TrialRun: its result stands as it was. */
function keptTrialRun(kept: TrialResult): TrialRun {
  const durationMs = kept.duration_ms ?? 0;
  return {
    trial: kept.trial,
    runId: kept.run_id ?? "",
    result: undefined,
    error: kept.error,
    scores: undefined,
    startedAt: Date.now() - durationMs,
    durationMs,
    kept,
  };
}

function trialResultOf(trial: TrialRun): TrialResult {
  if (trial.kept) return trial.kept;
  const status = trial.error || !trial.scores ? "error" : trial.scores.passed ? "passed" : "failed";
  const scores: Score[] = (trial.scores?.verdicts ?? []).map((verdict) => ({
    scorer: verdict.scorer,
    score: verdict.score,
    passed: verdict.passed,
    ...(verdict.threshold !== undefined ? { threshold: verdict.threshold } : {}),
  }));
  const violations: CaseViolation[] = (trial.scores?.verdicts ?? []).flatMap((verdict) =>
    verdict.result.violations.map((violation) => ({
      ...violation,
      scorer: verdict.scorer,
      trial: trial.trial,
    })),
  );
  const cost = trial.result ? runSummary(trial.result.run).cost_usd : undefined;
  return {
    trial: trial.trial,
    status,
    scores,
    violations,
    duration_ms: Math.round(trial.durationMs),
    ...(cost !== undefined ? { cost_usd: cost } : {}),
    run_id: trial.result?.run_id ?? trial.runId,
    ...(trial.result?.output_dir ? { output_dir: trial.result.output_dir } : {}),
    ...(trial.result ? { origin: trial.result.origin, run: trial.result.run } : {}),
    ...(trial.result?.recording ? { recording: trial.result.recording } : {}),
    ...(trial.error ? { error: trial.error } : {}),
  };
}

function reportOf(trial: TrialRun, status: TrialResult["status"]): TrialReport {
  if (trial.kept) {
    return {
      trial: trial.trial,
      runId: trial.runId,
      status: status === "skipped" ? "error" : status,
      ...(trial.kept.output_dir ? { outputDir: trial.kept.output_dir } : {}),
      ...(trial.kept.error ? { error: trial.kept.error } : {}),
    };
  }
  const runError = trial.result ? runErrorOf(trial.result) : undefined;
  const sandbox = (trial.result as { sandbox_dir?: unknown } | undefined)?.sandbox_dir;
  return {
    trial: trial.trial,
    runId: trial.result?.run_id ?? trial.runId,
    status: status === "skipped" ? "error" : status,
    ...(trial.scores ? { scores: trial.scores } : {}),
    ...(trial.result?.output_dir ? { outputDir: trial.result.output_dir } : {}),
    ...(runError ? { runError } : {}),
    ...(typeof sandbox === "string" ? { sandboxDir: sandbox } : {}),
    ...(trial.error ? { error: trial.error } : {}),
  };
}

/**
 * Adds the case and the verdict to the run's folder, so `evals grade <run folder>` can grade the
 * run again the same way. Only for a run of this process (a replayed result's folder is not ours).
 */
function recordCaseInRunFolder(dir: string, record: RunFolderCase): void {
  // Only a folder the run folder writer made (runAgent's, or a replayed result's) gets the case.
  if (!existsSync(join(dir, RUN_FOLDER_FILES.manifest))) return;
  try {
    const manifest = readManifest(dir) as RunFolderManifest;
    // Through JSON: what cannot be stored (functions) is left out, as the file will have it.
    writeRunFolder(dir, manifest.run_id, { case: JSON.parse(JSON.stringify(record)) as RunFolderCase });
  } catch (error) {
    process.emitWarning(
      `could not record the case in the run folder ${dir}: ${error instanceof Error ? error.message : String(error)}`,
      "EvalsRunFolder",
    );
  }
}

/** Why the runner says the run's record is incomplete (runAgent's `incomplete`), if it does. */
function incompleteRunOf(result: AgentRunResult): string | undefined {
  const said = (result as { incomplete?: unknown }).incomplete;
  return typeof said === "string" && said !== "" ? said : undefined;
}

/** What went wrong with a run, as runAgent said, or as its outcome tells. */
function runErrorOf(result: AgentRunResult): string | undefined {
  const said = (result as { error?: unknown }).error;
  if (typeof said === "string") return said;
  const judgement = judgeOutcome(result);
  return judgement.passed ? undefined : judgement.reason;
}

/** The run a ReplayDivergenceError of @evals/vcr carries (the replay ran, then diverged). */
function divergedRunOf(caught: unknown): AgentRunResult | undefined {
  if (!(caught instanceof Error) || caught.name !== "ReplayDivergenceError") return undefined;
  const result = (caught as { outcome?: { result?: unknown } }).outcome?.result;
  return result && typeof result === "object" && "run" in result && "run_id" in result
    ? (result as AgentRunResult)
    : undefined;
}

/** A case's display name: its `name`, else its input (shortened), else its position. */
export function caseName(caseValue: unknown, index: number): string {
  const fields = caseValue as EvalCaseFields | undefined;
  if (fields && typeof fields === "object" && typeof fields.name === "string" && fields.name)
    return fields.name;
  const input = fields && typeof fields === "object" && "input" in fields ? fields.input : caseValue;
  const text = typeof input === "string" ? input : input === undefined ? "" : JSON.stringify(input);
  const oneLine = (text ?? "").replace(/\s+/g, " ").trim();
  if (!oneLine) return `case ${index + 1}`;
  return oneLine.length > 80 ? `${oneLine.slice(0, 79)}…` : oneLine;
}

/** A case's stable id: its `id`, else its name as a slug. */
export function caseId(caseValue: unknown, name: string): string {
  const fields = caseValue as EvalCaseFields | undefined;
  if (fields && typeof fields === "object" && typeof fields.id === "string" && fields.id) return fields.id;
  return safeName(name).slice(0, 80) || "case";
}
