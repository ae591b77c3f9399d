import { statSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { parseRunnerOptions, RunnerOptionsError, resolveOptionPaths } from "@evals/core";
import {
  casePrompts,
  type EvalCase,
  type LoadedCase,
  loadCaseDir,
  loadCases,
  type RuleRegistry,
  scorersForCase,
} from "@evals/evaluators";
import type { ResultsShard, Shard, TrialResult } from "@evals/logging";
import { caseFixtureProblems, resolveCaseFixture } from "./case-fixture.js";
import { type CaseModels, caseModel } from "./case-models.js";
import type { CaseOutcome, CaseScorers, CaseSettings, EvalTask } from "./evaluate-case.js";
import { evaluateCase } from "./evaluate-case.js";
import { createLimiter } from "./limiter.js";
import type { OtelOption } from "./otel-export.js";
import type { PassRule } from "./pass-rule.js";
import {
  type AgentChoice,
  type AnyAgentRunner,
  type RunnerRegistry,
  suiteRegistry,
} from "./runner-registry.js";
import type { Threshold } from "./scoring.js";
import { shardsOfCases } from "./shard.js";
import type {
  CassetteOption,
  TrialContext,
  TrialRunOptions,
  TrialRunResult,
  WorktreeOption,
} from "./trial.js";
import {
  checkVariants,
  compareVariantOutcomes,
  trialVariant,
  type Variant,
  type VariantsResult,
  variantCase,
} from "./variants.js";

/**
 * The run options a case asks for: its prompt(s), its `agent` block's shared options (model, tools,
 * env ...) and its timeout, the runner's own under `options`, without a cwd. Relative paths in the
 * runner's path options (its `pathOptions`) are resolved against the case's file (or the current
 * folder for a case written in code).
 */
export function caseRunOptions(
  evalCase: EvalCase,
  runner?: Pick<AnyAgentRunner, "pathOptions">,
): TrialRunOptions {
  const prompts = casePrompts(evalCase);
  if (prompts.length === 0) throw new Error(`case ${evalCase.id} has no prompt`);
  const file = (evalCase as Partial<LoadedCase>).file;
  const base = file ? dirname(resolve(file)) : process.cwd();
  const {
    fixture: _fixture,
    fixtureOutsideProject: _outside,
    cli: _cli,
    options: own,
    ...shared
  } = evalCase.agent;
  const options: TrialRunOptions = { prompt: prompts.length === 1 ? prompts[0]! : prompts };
  for (const [name, value] of Object.entries(shared)) {
    if (value !== undefined) (options as unknown as Record<string, unknown>)[name] = value;
  }
  if (own !== undefined) options.options = resolveOptionPaths(own, runner?.pathOptions ?? [], base);
  if (evalCase.timeout !== undefined) options.timeoutMs = evalCase.timeout;
  return options;
}

/** Options of runCase. */
export interface RunCaseOptions {
  /**
   * More run options for the run (e.g. `env`, or the runner's own such as `options: { claudeBin }` or
   * `options: { pluginDirs }` of a workspace the task set up); they take precedence over the case's
   * own, except `env`, which is merged (the case's variables win); `options` are merged too.
   */
  runAgent?: Partial<TrialRunOptions>;
  /**
   * The folder the agent works in, prepared by the task (the case's fixture is copied into it):
   * the task owns it and removes it. Default: a fresh temp folder per trial, removed after scoring
   * (or the trial's worktree, in worktree mode, where this option is not allowed).
   */
  cwd?: string;
  /**
   * The agent that runs the case (e.g. `openCodeRunner`, or "opencode"); default: the case's
   * `agent.cli`, else the suite's agent (describeEval's `agent`, else its registry's default).
   */
  runner?: AgentChoice;
}

/**
 * One trial of a case, for a describeEval task: the real agent CLI (the case's runner) with the case's prompt(s) and
 * agent options, in a FRESH copy of its fixture (a folder of its own, removed once the trial's
 * scorers are done; in worktree mode the fixture is copied into the trial's worktree). Its model is
 * the suite's: scripted, recorded or replayed (see `model` and `cassette`).
 *
 * ```ts
 * describeEval("my cases", {
 *   agent: claudeCodeRunner,
 *   data: loadCases("cases/edits.yaml"),
 *   scorers: (evalCase) => scorersForCase(evalCase),
 *   task: (_input, trial) => runCase(trial, trial.case),
 * });
 * ```
 */
export async function runCase(
  trial: Pick<TrialContext<unknown>, "runAgent" | "runnerFor" | "afterScoring" | "worktree" | "variant">,
  evalCase: EvalCase,
  options: RunCaseOptions = {},
): Promise<TrialRunResult> {
  const runner = trial.runnerFor(options.runner ?? evalCase.agent.cli);
  const caseOptions = caseRunOptions(evalCase, runner);
  const variantOptions = trial.variant?.runAgent;
  // The variant's options win over everything: what it changes is the point of the comparison.
  const runOptions = { ...caseOptions, ...options.runAgent, ...variantOptions };
  if (caseOptions.env || options.runAgent?.env || variantOptions?.env)
    runOptions.env = { ...options.runAgent?.env, ...caseOptions.env, ...variantOptions?.env };
  if (caseOptions.options || options.runAgent?.options || variantOptions?.options)
    runOptions.options = { ...caseOptions.options, ...options.runAgent?.options, ...variantOptions?.options };
  const { copyFixture, createFixtureCopy } = await import("@evals/worktree");
  const fixture = evalCase.agent.fixture;
  let cwd: string;
  if (options.cwd !== undefined) {
    if (trial.worktree)
      throw new Error(`runCase: case ${evalCase.id} runs in a worktree, so \`cwd\` cannot be given`);
    cwd = options.cwd;
    if (fixture !== undefined) copyFixture(resolveCaseFixture(evalCase, fixture), { target: cwd });
  } else if (trial.worktree) {
    cwd = trial.worktree.path;
    if (fixture !== undefined) copyFixture(resolveCaseFixture(evalCase, fixture), { target: cwd });
  } else {
    // Removed after scoring, and on an interrupt or the death of the process too.
    const copy = createFixtureCopy(fixture === undefined ? undefined : resolveCaseFixture(evalCase, fixture));
    cwd = copy.path;
    trial.afterScoring(() => copy.remove());
  }
  return trial.runAgent({ ...runOptions, cwd }, runner);
}

/** Case files (YAML/JSON, or folders of them), or cases already loaded. */
export type CaseList = string | string[] | EvalCase[];

/**
 * Reads the cases of files and folders (relative to the current folder); a list of cases as it is.
/**
 * A case whose fixture cannot be used, or whose `agent.options` its runner (from `runners`) refuses,
 * makes its file invalid (CaseFileError: file, line and field), as `evals validate` says. The cases
 * may name the rules of `rules` (default: the built-in ones).
 */
export function loadCaseList(
  cases: CaseList,
  { runners, rules }: { runners?: RunnerRegistry; rules?: RuleRegistry } = {},
): EvalCase[] {
  const entries = Array.isArray(cases) ? cases : [cases];
  const options = {
    check: (evalCase: LoadedCase) => [
      ...caseFixtureProblems(evalCase),
      ...runnerOptionProblems(evalCase, runners),
    ],
    ...(rules ? { rules } : {}),
  };
  return entries.flatMap((entry): EvalCase[] => {
    if (typeof entry !== "string") return [entry];
    const path = resolve(entry);
    return statSync(path, { throwIfNoEntry: false })?.isDirectory()
      ? loadCaseDir(path, options)
      : loadCases(path, options);
  });
}

/**
 * What the case's runner says of its `agent.options` (located at `agent.options.<field>`), and an
 * `agent.cli` no registered runner runs. Without runners, nothing is checked here (the run checks).
 */
export function runnerOptionProblems(
  evalCase: EvalCase,
  runners: RunnerRegistry | undefined,
): { path: (string | number)[]; message: string }[] {
  if (!runners) return [];
  const cli = evalCase.agent.cli;
  if (cli !== undefined && !runners.has(cli)) {
    return [
      {
        path: ["agent", "cli"],
        message:
          runners.names().length === 0
            ? `no runner for ${JSON.stringify(cli)} is registered: no agent runner is`
            : `no runner for ${JSON.stringify(cli)} is registered; the registered ones are ${runners.names().join(", ")}`,
      },
    ];
  }
  const runner = cli === undefined ? runners.default : runners.get(cli);
  if (!runner) return [];
  try {
    parseRunnerOptions(runner, evalCase.agent.options);
    return [];
  } catch (error) {
    if (!(error instanceof RunnerOptionsError)) throw error;
    return error.issues.map((issue) => ({
      path: ["agent", "options", ...issue.path],
      message: `${issue.message} (${runner.cli}'s runner options)`,
    }));
  }
}

/** What describeCases and runCases share. */
export interface CaseSuiteOptions {
  /**
   * The rules the cases may name and that judge them (default: the built-in rules,
   * `defaultRuleRegistry`; `defaultRuleRegistry.with(myRule)` adds your own).
   */
  rules?: RuleRegistry;
  /**
   * The scorers: a list, or a function of the case. Default: the case's own rules, behavior,
   * expectedTrajectory and expectedViolations (`scorersForCase`).
   */
  scorers?: CaseScorers<EvalCase>;
  /** Runs one trial (default: `runCase(trial, trial.case, { runAgent })`). */
  task?: EvalTask<EvalCase>;
  /** The scripted model of each case (see CaseModels); with `cassette`, it is what gets recorded. */
  model?: CaseModels;
  /** Record once, replay afterwards (see describeEval's `cassette`). */
  cassette?: boolean | CassetteOption;
  /** Runs per case (default: the case's `trials`, else 1). */
  trials?: number;
  passRule?: PassRule;
  /** Default: the case's `threshold` (scorersForCase applies it). */
  threshold?: Threshold;
  /** Per trial, in ms (default: the case's `timeout`, plus a margin for the run to wind down). */
  timeout?: number;
  /** Every trial in its own git worktree (the case's fixture is copied into it). */
  worktree?: boolean | WorktreeOption;
  /** Where runs write `test-output/<run id>/`. */
  outputRoot?: string;
  /** More run options for every run (e.g. `{ options: { claudeBin } }` for Claude Code's runner). */
  runAgent?: Partial<TrialRunOptions>;
  /** The agent runners a case's `agent.cli` names; the first is the default. */
  runners?: RunnerRegistry;
  /** Which agent runs the cases without an `agent.cli` of their own (default: the first of `runners`). */
  agent?: AgentChoice;
  /** Export every case as an OpenTelemetry trace (see describeEval's `otel`; default EVALS_OTEL=1). */
  otel?: OtelOption;
}

/** The evaluateCase settings of one case of a case suite (without the suite name). */
export function caseSettingsOf(
  options: CaseSuiteOptions,
  evalCase: EvalCase,
): Omit<CaseSettings<EvalCase>, "suite"> {
  const cassette = options.cassette === true ? {} : options.cassette || undefined;
  const worktree = options.worktree === true ? {} : options.worktree || undefined;
  const timeout = options.timeout ?? (evalCase.timeout !== undefined ? evalCase.timeout + 30_000 : undefined);
  return {
    task:
      options.task ??
      ((_input, trial) => runCase(trial, trial.case, options.runAgent ? { runAgent: options.runAgent } : {})),
    scorers: options.scorers ?? ((value: EvalCase) => scorersForCase(value, options.rules)),
    trials: options.trials ?? evalCase.trials,
    ...(options.passRule !== undefined ? { passRule: options.passRule } : {}),
    ...(options.threshold !== undefined ? { threshold: options.threshold } : {}),
    ...(timeout !== undefined ? { timeout } : {}),
    ...(cassette ? { cassette } : {}),
    ...(worktree ? { worktree } : {}),
    ...(options.model ? { model: caseModel(options.model) } : {}),
    ...(options.agent ? { agent: options.agent } : {}),
    ...(options.runners ? { runners: options.runners } : {}),
    ...(options.outputRoot !== undefined ? { outputRoot: options.outputRoot } : {}),
    ...(options.otel !== undefined ? { otel: options.otel } : {}),
  };
}

/** caseSettingsOf for a case run under a variant (the case already has the variant's `agent`). */
export function variantSettingsOf(
  options: CaseSuiteOptions,
  evalCase: EvalCase,
  variant: Variant,
): Omit<CaseSettings<EvalCase>, "suite"> {
  return {
    ...caseSettingsOf(variant.model ? { ...options, model: variant.model } : options, evalCase),
    variant: trialVariant(variant),
  };
}

/** Options of runCases. */
export interface RunCasesOptions extends CaseSuiteOptions {
  /**
   * The suite name: recordings go to `<cassettes>/<suite>/`, keyed by suite and case id. Default:
   * each case file's name in the reports, and no suite for the recordings (`<cassettes>/`, keyed by
   * the case id: renaming a case file keeps them; two cases with one id are refused).
   */
  suite?: string;
  /** How many trials run at once, across all cases (default 1). */
  concurrency?: number;
  /** Stops the runs. */
  signal?: AbortSignal;
  /** Called with each case's outcome as it is decided (under `variants`, the case has the variant's options). */
  onCase?: (outcome: CaseOutcome, evalCase: EvalCase) => void;
  /** Called with each trial's result as soon as it has its verdict (a run journal keeps them). */
  onTrial?: (trial: TrialResult, evalCase: EvalCase) => void;
  /** A resumed run: each case's trials decided before, by trial number (kept, not run again). */
  keptTrials?: (evalCase: EvalCase) => ReadonlyMap<number, TrialResult> | undefined;
  /**
   * Runs every case under two variants, A (the baseline) then B, with the same trials and fixtures,
   * and compares them (see Variant and the result's `variants`). Each variant has its own run ids
   * and recordings.
   */
  variants?: readonly Variant[];
  /**
   * Run only this machine's share of the cases (each suite's split by casesInShard); every machine
   * loads the same case files and runs its own share, and mergeShardResults joins their results.
   */
  shard?: Shard;
}

/** What runCases found: every case's outcome, in order. */
export interface RunCasesResult {
  /** True when every case passed (under `variants`: every case of every variant that must pass). */
  passed: boolean;
  /** Every case's outcome (under `variants`: A's, then B's). */
  outcomes: CaseOutcome[];
  /** Under `variants`: each variant's outcomes and results, and their comparison. */
  variants?: VariantsResult;
  /**
   * With `shard`: which shard ran, and where each outcome's case stands among all the cases (for
   * the results' `meta.shard`, see writeReports). Under `variants`, among A's cases then B's (the
   * order of `outcomes`), and each variant's results carry their own.
   */
  shard?: ResultsShard;
}

/**
 * Runs cases with their trials outside vitest (for a command line or a script): each trial the
 * real CLI in a fresh copy of the case's fixture, scored by the case's own rules (or `scorers`),
 * decided by the pass rule. Never throws for what an agent or a scorer did: that is in the outcomes.
 */
export async function runCases(cases: CaseList, options: RunCasesOptions = {}): Promise<RunCasesResult> {
  const list = loadCaseList(cases, {
    runners: suiteRegistry(options),
    ...(options.rules ? { rules: options.rules } : {}),
  });
  if (options.suite === undefined && options.cassette) checkRecordingKeys(list);
  const schedule = createLimiter(options.concurrency ?? 1);
  const suiteFor = (evalCase: EvalCase) => options.suite ?? suiteOf(evalCase);
  const positions = options.shard ? positionsInShard(list, suiteFor, options.shard) : list.map((_c, i) => i);
  const shard = options.shard ? { shard: { ...options.shard, positions } } : {};
  if (options.variants) {
    const variants = checkVariants(options.variants);
    const sides = await Promise.all(
      variants.map(async (variant) => ({
        variant,
        outcomes: await evaluateCases(
          list.map((evalCase) => variantCase(evalCase, variant)),
          positions,
          options,
          schedule,
          variant,
        ),
      })),
    );
    const suites = [...new Set(list.map(suiteFor))];
    const result = compareVariantOutcomes(
      [
        { ...sides[0]!, positions },
        { ...sides[1]!, positions },
      ],
      {
        // Several suites make one run named as buildResults names it, on every shard (whichever it ran).
        suite: suites.length === 1 ? suites[0]! : "evals",
        ...(options.shard ? { shard: options.shard } : {}),
      },
    );
    return {
      passed: result.runs.every((run) => run.passed || run.variant.mustPass === false),
      outcomes: result.runs.flatMap((run) => run.outcomes),
      variants: result,
      // The outcomes are A's then B's: B's cases stand after all of A's.
      ...(options.shard
        ? {
            shard: {
              ...options.shard,
              positions: [...positions, ...positions.map((position) => list.length + position)],
            },
          }
        : {}),
    };
  }
  const outcomes = await evaluateCases(list, positions, options, schedule);
  return { passed: outcomes.every((outcome) => outcome.passed), outcomes, ...shard };
}

/**
 * The trials of the cases at `positions` (all, or this shard's), through the shared limiter; under
 * a variant, with its run ids and recordings.
 */
function evaluateCases(
  list: EvalCase[],
  positions: number[],
  options: RunCasesOptions,
  schedule: ReturnType<typeof createLimiter>,
  variant?: Variant,
): Promise<CaseOutcome[]> {
  return Promise.all(
    positions.map(async (index) => {
      const evalCase = list[index]!;
      const settings = withRecordingSuite(
        variant ? variantSettingsOf(options, evalCase, variant) : caseSettingsOf(options, evalCase),
        options.suite,
      );
      const outcome = await evaluateCase(
        evalCase,
        index,
        {
          suite: options.suite ?? suiteOf(evalCase),
          schedule,
          ...settings,
          ...(options.shard ? { shard: options.shard } : {}),
        },
        {
          name: evalCase.name ?? evalCase.id,
          ...(options.signal ? { signal: options.signal } : {}),
          ...((evalCase as Partial<LoadedCase>).file ? { file: (evalCase as LoadedCase).file } : {}),
          ...keptAndJournaled(options, evalCase),
        },
      );
      options.onCase?.(outcome, evalCase);
      return outcome;
    }),
  );
}

/** evaluateCase's options of a resumed or journaled run: the trials kept, and where each new one goes. */
function keptAndJournaled(options: RunCasesOptions, evalCase: EvalCase) {
  const kept = options.keptTrials?.(evalCase);
  const onTrial = options.onTrial;
  return {
    ...(kept ? { keptTrials: kept } : {}),
    ...(onTrial ? { onTrial: (trial: TrialResult) => onTrial(trial, evalCase) } : {}),
  };
}

/**
 * Without a suite, a case's recordings are keyed by its id alone (in the cassette folder), not by
 * the name of the file that holds it: renaming or moving that file keeps them.
 */
function withRecordingSuite(
  settings: Omit<CaseSettings<EvalCase>, "suite">,
  suite: string | undefined,
): Omit<CaseSettings<EvalCase>, "suite"> {
  if (!settings.cassette || suite !== undefined) return settings;
  return { ...settings, cassette: { suite: "", ...settings.cassette } };
}

/** Two cases without a suite have one id, so their recordings would be one file (bad input). */
export class DuplicateCaseIdError extends Error {
  override readonly name = "DuplicateCaseIdError";
}

/**
 * Two cases keyed by the same id would share one recording: refused (DuplicateCaseIdError), naming
 * both, before anything runs (a suite keeps them apart: the cassette folder's sub-folder and part of
 * the key). runCases checks it when it runs without a suite; a command line checks it up front.
 */
export function checkRecordingKeys(list: EvalCase[]): void {
  const seen = new Map<string, EvalCase>();
  for (const evalCase of list) {
    const first = seen.get(evalCase.id);
    if (!first) {
      seen.set(evalCase.id, evalCase);
      continue;
    }
    const where = (value: EvalCase) => (value as Partial<LoadedCase>).file ?? "(a case given in code)";
    throw new DuplicateCaseIdError(
      `two cases have the id "${evalCase.id}" (${where(first)} and ${where(evalCase)}): their recordings would be one file, since recordings are keyed by the case id. Give one of them another id, or run each file with its own --suite.`,
    );
  }
}

/** The positions (in `list`) of the cases that fall to `shard`, each suite split on its own. */
function positionsInShard(
  list: EvalCase[],
  suiteFor: (evalCase: EvalCase) => string,
  shard: Shard,
): number[] {
  const bySuite = new Map<string, number[]>();
  list.forEach((evalCase, position) => {
    const suite = suiteFor(evalCase);
    bySuite.set(suite, [...(bySuite.get(suite) ?? []), position]);
  });
  const mine: number[] = [];
  for (const [suite, members] of bySuite) {
    const shards = shardsOfCases(
      suite,
      members.map((position) => list[position]!.id),
      shard.count,
    );
    members.forEach((position, n) => {
      if (shards[n] === shard.index) mine.push(position);
    });
  }
  return mine.sort((a, b) => a - b);
}

/** A case's suite when none is given: its file's name without the extension, else "cases". */
function suiteOf(evalCase: EvalCase): string {
  const file = (evalCase as Partial<LoadedCase>).file;
  return file ? basename(file).replace(/(\.case)?\.(ya?ml|json)$/i, "") : "cases";
}
