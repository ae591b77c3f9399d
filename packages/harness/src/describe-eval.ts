import { relative } from "node:path";
import type { Scorer } from "@evals/core";
import type { ExpectedOutcome } from "@evals/evaluators";
import {
  type EvalTestMeta,
  formatShard,
  parseShard,
  SHARD_PROVIDE_KEY,
  type Shard,
  shardFromEnv,
} from "@evals/logging";
import { describe, inject, test } from "vitest";
import {
  type CaseOutcome,
  type CaseScorers,
  type CaseSettings,
  caseId,
  caseName,
  type EvalCaseFields,
  type EvalTask,
  evaluateCase,
} from "./evaluate-case.js";
import { createLimiter } from "./limiter.js";
import type { OtelOption } from "./otel-export.js";
import type { PassRule } from "./pass-rule.js";
import { type AgentChoice, type RunnerRegistry, resolveRunner } from "./runner-registry.js";
import type { Threshold } from "./scoring.js";
import { shardsOfCases } from "./shard.js";
import type { CaseModel, CassetteOption, WorktreeOption } from "./trial.js";

export interface DescribeEvalOptions<Case> {
  /** The cases: a list, or a function that loads them (it may be async). */
  data: Case[] | (() => Case[] | Promise<Case[]>);
  /** Runs one trial of a case: usually `(input, { runAgent }) => runAgent({ prompt: input, ... })`. */
  task: EvalTask<NoInfer<Case>>;
  /**
   * @evals/core scorers (e.g. from @evals/evaluators) judging each trial's run: one list for every
   * case, or a function that gives each case its own (`(evalCase) => scorersForCase(evalCase)`).
   */
  scorers: CaseScorers<NoInfer<Case>>;
  /** A number (every scorer), `{ scorers: { name: n } }` and/or `{ overall: n }` (the mean). */
  threshold?: Threshold;
  /** Independent runs per case (default 1). */
  trials?: number;
  /** When a case with several trials passes: "all" (default), "any", or `{ atLeast: rate }`. */
  passRule?: PassRule;
  /** Per trial, in ms: the agent is stopped then and the trial errors. */
  timeout?: number;
  /**
   * How every case's run must end unless the case says (`outcome` in the case); default "success": an
   * API error, max turns, an error result, a kill, a nonzero exit, no result line or a timeout fail it.
   */
  outcome?: ExpectedOutcome;
  /**
   * How many trials of the suite run at once (default 1). Above 1 the cases' tests run
   * concurrently, and the trials of all cases share this many slots.
   */
  concurrency?: number;
  /**
   * An LLM judge, loaded only when EVAL_LLM_JUDGE=1 (otherwise it is never called, so nothing it
   * imports is loaded): `judge: async () => (await import("./my-judge.js")).judge`.
   */
  judge?: () =>
    | Scorer<NoInfer<Case>>
    | Scorer<NoInfer<Case>>[]
    | Promise<Scorer<NoInfer<Case>> | Scorer<NoInfer<Case>>[]>;
  /**
   * Whether this suite runs its `judge` (e.g. @evals/judge's rubricJudge, whose verdicts replay
   * offline): true turns it on, false off, whatever EVAL_LLM_JUDGE says; default: EVAL_LLM_JUDGE=1.
   */
  judgeEnabled?: boolean;
  /** Run every trial in its own git worktree (true: of the current repository at HEAD). */
  worktree?: boolean | WorktreeOption;
  /**
   * Record the model's side of each run once and replay it afterwards (true: wire level, in
   * `cassettes/<suite>/<case id>.<hash>.recording.json`, mode from VCR_MODE). With `model`, the
   * recording is made from that scripted model; without one, from the real API the case's agent
   * speaks (ANTHROPIC_API_KEY, OPENAI_API_KEY for Codex, GEMINI_API_KEY for Gemini CLI).
   */
  cassette?: boolean | CassetteOption;
  /**
   * The model of each trial (a fresh one per run), for the case: a @evals/vcr ScriptFunction or a
   * ModelSource, e.g. `(c) => agents[c.id]` or `() => scripted(fn)`. With `cassette` it is what gets
   * recorded, and a replay needs none.
   */
  model?: CaseModel<NoInfer<Case>>;
  /**
   * Which agent runs the trials: a runner (`claudeCodeRunner` from @evals/claude-code, `openCodeRunner`
   * from @evals/opencode, any @evals/core AgentRunner), or the `cli` of one in `runners` (default: the
   * first of `runners`). `runAgent` in the task runs it, and so does runCase; a case's `agent.cli` wins
   * for that case.
   */
  agent?: AgentChoice;
  /** The agent runners `agent` and a case's `agent.cli` may name (`new RunnerRegistry([claudeCodeRunner, openCodeRunner])`). */
  runners?: RunnerRegistry;
  /** Skip the suite's tests, with the reason, when the suite's agent CLI cannot run here (its runner's `unavailable()`). */
  requiresAgent?: boolean;
  /** Where runs write `test-output/<run id>/` (default: EVALS_OUTPUT_DIR, else the cwd). */
  outputRoot?: string;
  /**
   * Run only this machine's share of the cases (see casesInShard); the others become skipped tests
   * named "(shard i/n)". Default: EVALS_SHARD (`EVALS_SHARD=2/3 vitest run`), else `vitest --shard`'s
   * with @evals/logging's CaseShardSequencer, else every case.
   */
  shard?: Shard;
  /**
   * Export every case as an OpenTelemetry trace to an OTLP endpoint (@evals/otel, which must be
   * installed, is loaded only then): true or settings turn it on, false off; default EVALS_OTEL=1.
   */
  otel?: OtelOption;
}

/**
 * Declares a vitest suite with one test per case. Each test runs the case's trials, scores them,
 * attaches the case's result to the test (`task.meta.evalCase`, for @evals/logging's reporter) and
 * fails with a message that names the scorer, its score and threshold and what went wrong.
 *
 * ```ts
 * describeEval("lists files", {
 *   agent: claudeCodeRunner, // from @evals/claude-code
 *   data: [{ input: "list the files", expectedTrajectory: [{ tool: "Bash" }] }],
 *   task: (prompt, { runAgent }) => runAgent({ prompt, allowedTools: ["Bash"] }),
 *   scorers: [trajectoryScorer()],
 *   trials: 3,
 *   passRule: { atLeast: 2 / 3 },
 * });
 * ```
 */
export function describeEval<Case>(name: string, options: DescribeEvalOptions<Case>): void {
  defineEvalSuite(name, options);
}

/** describeEval, with settings a case may change for itself (its trials, timeout, threshold). */
export function defineEvalSuite<Case>(
  name: string,
  options: DescribeEvalOptions<Case>,
  perCase: (caseValue: Case) => Partial<CaseSettings<Case>> = () => ({}),
  hooks: SuiteHooks = {},
): void {
  const concurrency = options.concurrency ?? 1;
  const schedule = createLimiter(concurrency);
  const trials = options.trials ?? 1;
  const judgeOn = options.judgeEnabled ?? process.env.EVAL_LLM_JUDGE === "1";
  let judges: Promise<Scorer<Case>[]> | undefined;
  const judgeScorers = () => {
    judges ??= (async () => {
      if (!judgeOn || !options.judge) return [];
      const judge = await options.judge();
      return Array.isArray(judge) ? judge : [judge];
    })();
    return judges;
  };
  const scorersOf = async (caseValue: Case): Promise<Scorer<Case>[]> => {
    const own = typeof options.scorers === "function" ? options.scorers(caseValue) : options.scorers;
    return [...own, ...(await judgeScorers())];
  };

  describe(name, async () => {
    const cases = typeof options.data === "function" ? await options.data() : options.data;
    if (!Array.isArray(cases))
      throw new Error(`describeEval "${name}": data must be (or give) an array of cases`);
    // The slowest a test can be: every trial of the suite ahead of it, each to its timeout.
    const own = cases.map((caseValue) => perCase(caseValue));
    const perTrial =
      Math.max(0, ...own.map((settings) => settings.timeout ?? options.timeout ?? 300_000)) + 20_000;
    const allTrials = own.reduce((sum, settings) => sum + (settings.trials ?? trials), 0);
    const testTimeout = Math.ceil(allTrials / concurrency) * perTrial;
    const names = uniqueNames(cases.map((value, index) => caseName(value, index)));
    const define = concurrency > 1 ? test.concurrent : test;
    const shard = suiteShard(options.shard);
    const shardOf = shard
      ? (hooks.shardsOf?.(shard.count) ?? shardsOfSuite(hooks.shardSuite ?? name, cases, shard.count))
      : undefined;

    cases.forEach((caseValue, index) => {
      const skip = (caseValue as EvalCaseFields | undefined)?.skip;
      const testName = names[index]!;
      if (skip) {
        test.skip(typeof skip === "string" ? `${testName} (${skip})` : testName, () => {});
        return;
      }
      if (shard && shardOf && shardOf[index] !== shard.index) {
        // Declared all the same, so every shard sees the whole suite (the reporter's positions).
        test.skip(`${testName} (shard ${formatShard({ index: shardOf[index]!, count: shard.count })})`, () => {});
        return;
      }
      define(
        testName,
        async (context) => {
          if (options.requiresAgent) skipIfUnavailable(context, resolveRunner(undefined, options));
          const settings: CaseSettings<Case> = {
            suite: name,
            task: options.task,
            scorers: await scorersOf(caseValue),
            trials,
            schedule,
            ...(options.threshold !== undefined ? { threshold: options.threshold } : {}),
            ...(options.passRule !== undefined ? { passRule: options.passRule } : {}),
            ...(options.timeout !== undefined ? { timeout: options.timeout } : {}),
            ...(options.outcome !== undefined ? { outcome: options.outcome } : {}),
            ...(options.outputRoot !== undefined ? { outputRoot: options.outputRoot } : {}),
            ...(options.runners ? { runners: options.runners } : {}),
            ...(options.worktree ? { worktree: options.worktree === true ? {} : options.worktree } : {}),
            ...(options.cassette ? { cassette: options.cassette === true ? {} : options.cassette } : {}),
            ...(options.model ? { model: options.model } : {}),
            ...(options.agent ? { agent: options.agent } : {}),
            ...(shard ? { shard } : {}),
            ...(options.otel !== undefined ? { otel: options.otel } : {}),
            ...own[index],
          };
          const file = context.task.file?.filepath;
          const outcome = await evaluateCase(caseValue, index, settings, {
            name: testName,
            signal: context.signal,
            ...(file ? { file: relative(process.cwd(), file) } : {}),
          });
          hooks.onOutcome?.(outcome, index);
          // Every case goes to the reports (and the results database), a baseline's too.
          const result = hooks.metaSuite ? { ...outcome.result, suite: hooks.metaSuite } : outcome.result;
          const meta: EvalTestMeta = { evalCase: { ...result, meta_version: 1 } };
          Object.assign(context.task.meta, meta);
          if (hooks.gate === false) return;
          if (!outcome.passed) throw new EvalCaseFailure(outcome.message ?? `Case "${testName}" failed`);
        },
        testTimeout,
      );
    });
  });
}

/** What a suite built on defineEvalSuite (describeCases' variants) does with each case's outcome. */
export interface SuiteHooks {
  /** Called with each case's outcome and index, before the test passes or fails. */
  onOutcome?: (outcome: CaseOutcome, index: number) => void;
  /**
   * false: the outcome fails no test (a compared baseline); it still goes to the reports, under
   * `metaSuite`. Default true.
   */
  gate?: boolean;
  /** The suite the reports show the case under (default: the suite's name). */
  metaSuite?: string;
  /**
   * The suite name that decides which shard runs each case (default: the suite's name). Variants of
   * one suite share it, so a case's A and B run on the same shard and each shard compares whole cases.
   */
  shardSuite?: string;
  /**
   * The shard (1-based) of each case, when the run is split in `count`, called once the cases are
   * known (default: shardsOfSuite of the suite's cases). A suite of some of another suite's cases
   * (describeCases' baseline) gives each the shard of that suite's case, so both run on one shard.
   */
  shardsOf?: (count: number) => number[];
}

/**
 * The shard (1-based) each of a suite's cases falls to when the run is split in `count`: shardsOfCases
 * over the cases' ids (or names), as describeEval declares them.
 */
export function shardsOfSuite(suite: string, cases: readonly unknown[], count: number): number[] {
  const names = uniqueNames(cases.map((value, index) => caseName(value, index)));
  return shardsOfCases(
    suite,
    cases.map((value, index) => caseId(value, names[index]!)),
    count,
  );
}

declare module "vitest" {
  interface ProvidedContext {
    /** `vitest --shard`'s `i/n`, when @evals/logging's CaseShardSequencer made it a shard of cases. */
    evalsShard: string;
  }
}

/**
 * The shard a suite runs: the one given, else EVALS_SHARD's, else `vitest --shard`'s (with
 * CaseShardSequencer), else none (every case). Call it where vitest's inject works (a test file).
 */
export function suiteShard(given?: Shard): Shard | undefined {
  return given ?? shardFromEnv() ?? vitestShard();
}

/** `vitest --shard`'s shard, when @evals/logging's CaseShardSequencer makes it a shard of cases. */
function vitestShard(): Shard | undefined {
  const provided = inject(SHARD_PROVIDE_KEY);
  return provided ? parseShard(provided, "vitest --shard") : undefined;
}

/** The error a failed eval case throws: its message says which scorer failed, by how much, and why. */
export class EvalCaseFailure extends Error {
  override readonly name = "EvalCaseFailure";
}

/** Names that are unique within the suite (a repeated name gets " (2)", " (3)", ...). */
function uniqueNames(names: string[]): string[] {
  const seen = new Map<string, number>();
  return names.map((name) => {
    const count = (seen.get(name) ?? 0) + 1;
    seen.set(name, count);
    return count === 1 ? name : `${name} (${count})`;
  });
}

/**
 * Skips the test, with the reason, when the runner's CLI cannot run here. The reason goes into the
 * test's meta too (`skipReason`: vitest's JSON report keeps a test's meta, not its skip note).
 */
function skipIfUnavailable(
  context: { skip(note?: string): void; task?: { meta: object } },
  runner: ReturnType<typeof resolveRunner>,
): void {
  const reason = runner.unavailable?.();
  if (reason === undefined) return;
  const note = `${runner.cli} is not available: ${reason}`;
  if (context.task) Object.assign(context.task.meta, { skipReason: note });
  context.skip(note);
}
