import { existsSync, mkdirSync, rmSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import {
  type AgentRunOptions,
  type AgentRunResult,
  createRedactor,
  parseRunnerOptions,
  type RedactOptions,
  type Run,
  readManifest,
  readRunFolderResult,
  runFolderPath,
  secretsFromEnv,
  secretsFromEnvValues,
  writeRunFolder,
} from "@evals/core";
import type {
  ModelServer,
  ModelSource,
  ReplayOptions,
  ReplaySource,
  ScriptFunction,
  VcrMode,
} from "@evals/vcr";
import type { Trial as WorktreeTrial, TrialOptions as WorktreeTrialOptions } from "@evals/worktree";
import {
  type AgentChoice,
  type AnyAgentRunner,
  type RunnerRegistry,
  resolveRunner,
} from "./runner-registry.js";

/**
 * What a trial's runAgent takes: the options every runner shares (@evals/core's AgentRunOptions), the
 * runner's own under `options`, as in a case file's `agent:` block (validated by the runner's optionsSchema).
 */
export interface TrialRunOptions extends AgentRunOptions {
  options?: Record<string, unknown>;
}

/** What a trial's runAgent gives: the runner's AgentRunResult, with the command that ran ([] when the runner does not say). */
export type TrialRunResult = AgentRunResult & { command: string[]; error?: string };

/** Run every trial in a fresh git worktree of a repository (see @evals/worktree). */
export interface WorktreeOption {
  /** The repository (default: the current directory's). */
  repo?: string;
  /** The commit to check out (default HEAD). */
  ref?: string;
  /** Uncommitted changes: "error" (default), "ignore", or "include" (a snapshot of them). */
  dirty?: WorktreeTrialOptions["dirty"];
  /** Keep the worktree: "never" (default), "on-failure" or "always". */
  keep?: WorktreeTrialOptions["keep"];
}

/** Replay (or record) the model's side of each run, through @evals/vcr. */
export interface CassetteOption {
  /**
   * "wire" (default): the real CLI runs every trial, its model calls answered from a recording, so
   * tools and hooks really run. "result": the whole stored result is replayed and the agent never
   * starts (only with trials: 1, since every trial would be the same copy).
   */
  level?: "wire" | "result";
  /** record | replay | auto | strict | off (default: VCR_MODE, else strict on CI, else auto). */
  mode?: VcrMode;
  /** The cassette folder (default `cassettes`). */
  dir?: string;
  /**
   * The recordings' suite: their sub-folder of `dir` and part of their key (default: the suite's
   * name). `""` keys them by the case id alone, so renaming the file that holds a case keeps them
   * (`evals run` without `--suite`).
   */
  suite?: string;
  /**
   * Where a recording run's requests go when there is no scripted `model`: the real API of the
   * case's runner by default (needs its key: ANTHROPIC_API_KEY, OPENAI_API_KEY for Codex,
   * GEMINI_API_KEY for Gemini CLI), or another model server's url.
   */
  upstream?: string;
  /**
   * How a replay matches requests (wire level) beyond @evals/vcr's built-in normalization (made for
   * Claude Code): more `replace` rewrites (e.g. `[[/session-[0-9a-f]+/g, "<session>"]]` to mask what
   * differs from one run to the next in your tools' output), `ignore`d fields. Another agent CLI needs
   * its own, e.g. @evals/opencode's `OPENCODE_CASSETTE_REPLAY` (see @evals/vcr ReplayOptions).
   */
  replay?: Omit<ReplayOptions, "redact" | "label">;
  /**
   * When a wire replay fails the trial: `true` (default) when a request matched no recorded one;
   * `"incomplete"` also when the run stopped before using every recorded answer; `false` never.
   */
  failOnDivergence?: boolean | "incomplete";
}

/**
 * The model that answers a case's runs: a @evals/vcr ScriptFunction (or a ModelSource) for the
 * case, or undefined for none. With a cassette it is what gets recorded; a replay does not call it.
 */
export type CaseModel<Case> = (caseValue: Case) => ModelSource | ScriptFunction | undefined;

/**
 * The variant a trial runs under, when the suite compares variants (describeCases' and runCases'
 * `variants`): its name, which goes into the trial's run id and its recording's name, and runAgent
 * options that win over every other (the case's, the suite's `runAgent`, a task's runCase options).
 */
export interface TrialVariant {
  name: string;
  runAgent?: Partial<TrialRunOptions>;
}

/** What a task gets besides the case's input. */
export interface TrialContext<Case> {
  /** The whole case. */
  case: Case;
  /** 0-based trial number, and how many trials the case has. */
  trial: number;
  trials: number;
  /** This trial's own run id (TEST_RUN_ID): no two trials share one. */
  runId: string;
  /** Aborts when the trial times out or the test is cancelled. */
  signal: AbortSignal;
  /** The suite's per-trial timeout, when it has one. */
  timeoutMs?: number;
  /** The trial's git worktree, in worktree mode (run the agent there: `cwd`). */
  worktree?: WorktreeTrial;
  /** The variant this trial runs under, when the suite compares variants (runCase applies it). */
  variant?: TrialVariant;
  /** The options runAgent gets for this trial (run id, signal, timeout, cwd, output root). */
  agentOptions: Partial<TrialRunOptions>;
  /**
   * runAgent for this trial: its run id, signal, timeout, worktree and output root filled in, its
   * model served by the suite's `model` or cassette when there is one. It runs the suite's agent
   * (describeEval's `agent`, else the default of its `runners`), or `runner` when given.
   */
  runAgent(options: TrialRunOptions, runner?: AgentChoice): Promise<TrialRunResult>;
  /** The runner a choice names for this trial (a runner, a registered `cli`); none given: the suite's. */
  runnerFor(choice?: AgentChoice): AnyAgentRunner;
  /**
   * Registers clean-up to run once the trial's scorers are done (or it failed), e.g. removing the
   * folder the agent worked in: scorers that look at the agent's files still see them.
   */
  afterScoring(cleanup: () => void | Promise<void>): void;
}

export interface TrialSetup<Case> {
  suite: string;
  caseId: string;
  caseValue: Case;
  trial: number;
  trials: number;
  runId: string;
  signal: AbortSignal;
  timeoutMs?: number;
  outputRoot: string;
  worktree?: WorktreeOption;
  cassette?: CassetteOption;
  model?: CaseModel<Case>;
  /** The agent that runs (a runner, or the name of one in `runners`; default: the registry's default); a `runner` given to runAgent wins. */
  agent?: AgentChoice;
  /** The runners `agent` and a case's `agent.cli` name. */
  runners?: RunnerRegistry;
  /** The variant the trial runs under: its recording is `<case id>.<variant>.<hash>.recording.json`. */
  variant?: TrialVariant;
  /** Where the trial's clean-ups go (evaluateCase runs them after scoring); default: at the trial's end. */
  afterScoring?: (cleanup: () => void | Promise<void>) => void;
  /**
   * Called with the trial's result while its worktree still exists (after the outcome is captured),
   * so scorers that grade the files (a command grader, the project's tests) see the agent's work.
   */
  whileInWorktree?: (result: AgentRunResult) => Promise<void>;
}

/**
 * Runs `task` as one trial: in its worktree when asked, with a context whose runAgent knows the
 * trial's run id, signal, timeout and model. Returns what the task returned, as an AgentRunResult.
 */
export async function runTrial<Case>(
  setup: TrialSetup<Case>,
  task: (context: TrialContext<Case>) => Promise<AgentRunResult | Run> | AgentRunResult | Run,
): Promise<AgentRunResult> {
  const started = performance.now();
  // The secrets of every agent run of the trial, for the files the worktree writes (the outcome).
  const redactions: RedactOptions[] = [];
  let trialRedactor = createRedactor();
  const cleanups: (() => void | Promise<void>)[] = [];
  const afterScoring = setup.afterScoring ?? ((cleanup) => cleanups.push(cleanup));
  const call = async (worktree?: WorktreeTrial): Promise<AgentRunResult> => {
    const signal = worktree ? AbortSignal.any([setup.signal, worktree.signal]) : setup.signal;
    const agentOptions: Partial<TrialRunOptions> = {
      runId: setup.runId,
      signal,
      outputRoot: setup.outputRoot,
      ...(setup.timeoutMs !== undefined ? { timeoutMs: setup.timeoutMs } : {}),
      ...(worktree ? { cwd: worktree.path } : {}),
    };
    let calls = 0;
    const context: TrialContext<Case> = {
      case: setup.caseValue,
      trial: setup.trial,
      trials: setup.trials,
      runId: setup.runId,
      signal,
      ...(setup.timeoutMs !== undefined ? { timeoutMs: setup.timeoutMs } : {}),
      ...(worktree ? { worktree } : {}),
      ...(setup.variant ? { variant: setup.variant } : {}),
      agentOptions,
      afterScoring,
      runnerFor: (choice) => resolveRunner(choice, setup),
      runAgent: (options, runner) => {
        // A second agent run in the same trial gets its own folder: <runId>-2, ...
        const runId = calls++ === 0 ? setup.runId : `${setup.runId}-${calls}`;
        const merged: TrialRunOptions = {
          ...options,
          ...agentOptions,
          runId,
          signal: options.signal ? AbortSignal.any([options.signal, signal]) : signal,
          ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
          ...(options.cwd !== undefined && !worktree ? { cwd: options.cwd } : {}),
          ...(options.outputRoot !== undefined ? { outputRoot: options.outputRoot } : {}),
        };
        redactions.push(recordingRedaction(merged));
        trialRedactor = createRedactor({
          patterns: redactions.flatMap((redact) => redact.patterns ?? []),
          secrets: redactions.flatMap((redact) => [
            ...(redact.secrets ?? []),
            ...secretsFromEnv(redact.env ?? {}),
            ...secretsFromEnvValues(redact.secretEnv ?? {}),
          ]),
          headers: redactions.flatMap((redact) => redact.headers ?? []),
        });
        return runWithModel(setup, merged, runner);
      },
    };
    const returned = await task(context);
    return asAgentRunResult(returned, setup.runId, performance.now() - started);
  };
  try {
    return await inWorktreeIfAsked(setup, call, () => trialRedactor);
  } finally {
    await runCleanups(cleanups);
  }
}

/** Runs every clean-up, in reverse order of registration; a failing one is a warning, not an error. */
export async function runCleanups(cleanups: (() => void | Promise<void>)[]): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      await cleanup();
    } catch (error) {
      process.emitWarning(
        `a trial's clean-up failed: ${error instanceof Error ? error.message : String(error)}`,
        "EvalsTrialCleanup",
      );
    }
  }
}

async function inWorktreeIfAsked<Case>(
  setup: TrialSetup<Case>,
  call: (worktree?: WorktreeTrial) => Promise<AgentRunResult>,
  redactor: () => { text(value: string): string },
): Promise<AgentRunResult> {
  if (!setup.worktree) return call();
  const { withTrialWorktree } = await import("@evals/worktree");
  return withTrialWorktree(
    setup.worktree.repo ?? process.cwd(),
    {
      testId: setup.runId,
      outputRoot: setup.outputRoot,
      signal: setup.signal,
      ...(setup.worktree.ref ? { ref: setup.worktree.ref } : {}),
      ...(setup.worktree.dirty ? { dirty: setup.worktree.dirty } : {}),
      ...(setup.worktree.keep ? { keep: setup.worktree.keep } : {}),
      redact: { text: (value: string) => redactor().text(value) },
    },
    async (worktree) => {
      const result = await call(worktree);
      if (setup.whileInWorktree) {
        await worktree.captureOutcome();
        await setup.whileInWorktree(result);
      }
      return result;
    },
  );
}

/** Runs the agent, its model served by the suite's scripted model or cassette when it has one. */
async function runWithModel<Case>(
  setup: TrialSetup<Case>,
  options: TrialRunOptions,
  chosen?: AgentChoice,
): Promise<TrialRunResult> {
  const runner = resolveRunner(chosen, setup);
  const own = parseRunnerOptions(runner, options.options);
  // Every runner gives an AgentRunResult; extras such as the command may be missing.
  const runAgent = async ({ options: _own, ...shared }: TrialRunOptions): Promise<TrialRunResult> => ({
    command: [],
    ...(await runner.run(shared, own)),
  });
  const prompt = Array.isArray(options.prompt) ? options.prompt.join("\n\n") : options.prompt;
  if (setup.cassette && (setup.cassette.level ?? "wire") === "result") {
    if (setup.trials > 1) {
      throw new Error(
        'describeEval: a result cassette replays one stored run, so every trial would be the same copy; use cassette level "wire" (the CLI really runs each trial) or trials: 1',
      );
    }
    const { cassette } = await import("@evals/vcr");
    const result = await cassette(
      {
        suite: setup.cassette.suite ?? setup.suite,
        caseId: cassetteCaseId(setup),
        prompt,
        options: cassetteKeyOptions(options, setup.cassette, runner.pathOptions),
        ...(setup.cassette.mode ? { mode: setup.cassette.mode } : {}),
        ...(setup.cassette.dir ? { dir: setup.cassette.dir } : {}),
        redact: recordingRedaction(options),
      },
      () => runAgent(options),
    );
    return { command: [], ...withRunFolder(result, options) };
  }
  const scriptFailure = new AbortController();
  const model = await modelFor(setup, scriptFailure, runner.modelApi);
  const served = setup.cassette
    ? await cassetteSource(setup, setup.cassette, options, prompt, model, runner)
    : undefined;
  const source = served?.source ?? model;
  if (!source) return runAgent(options);
  const { startModelServer } = await import("@evals/vcr");
  const server: ModelServer = await startModelServer({ source, modelApi: runner.modelApi });
  let result: TrialRunResult | undefined;
  try {
    // A scripted model that throws stops the run at once: the CLI would retry its 500 for minutes.
    const signal = options.signal
      ? AbortSignal.any([options.signal, scriptFailure.signal])
      : scriptFailure.signal;
    result = await runAgent({ ...options, baseUrl: server.url, signal });
  } finally {
    // A run that did not finish, or whose model failed, is not worth recording: the old recording stays.
    const upstreamFailed = served?.upstream?.interactions.some((interaction) => interaction.error);
    if (
      (!result || result.timed_out || scriptFailure.signal.aborted || upstreamFailed) &&
      "discard" in source &&
      typeof source.discard === "function"
    ) {
      source.discard();
    }
    await server.close();
    await served?.upstream?.close();
  }
  if (scriptFailure.signal.aborted) throw scriptFailure.signal.reason;
  // Answered from a recording: reports show it as replayed, its cost and model as the recording's.
  if (source.name === "replay") markReplayedInRunFolder(result);
  await failOnDivergence(source, result, served?.wire, setup.cassette?.failOnDivergence);
  if (served?.wire.action === "record") await finishRecording(served.wire, served.upstream);
  return source.name === "replay" && served
    ? { ...result, origin: "replay", recording: nearPath(served.wire.file) }
    : result;
}

/** The case's name in its recording's file: `<case id>.<variant>` under a variant, so each variant has its own. */
function cassetteCaseId(setup: Pick<TrialSetup<unknown>, "caseId" | "variant">): string {
  return setup.variant ? `${setup.caseId}.${setup.variant.name}` : setup.caseId;
}

/**
 * runAgent stored the result as live before it was known to have been answered from a recording:
 * the run folder says replayed too, so `evals report` and `evals grade` on it show no cost as spent.
 */
function markReplayedInRunFolder(result: TrialRunResult): void {
  const dir = result.output_dir;
  if (dir === undefined) return;
  const stored = readRunFolderResult(dir);
  const runId = readManifest(dir)?.run_id;
  if (!stored || runId === undefined || stored.origin === "replay") return;
  writeRunFolder(dir, runId, { result: { ...stored, origin: "replay" } });
}

/**
 * The suite's model for this trial's case, as a source (a ScriptFunction is scripted). A script
 * that throws aborts `failure`, with the error (the script's own stack) as its reason.
 */
async function modelFor<Case>(
  setup: TrialSetup<Case>,
  failure: AbortController,
  modelApi: AnyAgentRunner["modelApi"],
): Promise<ModelSource | undefined> {
  const model = setup.model?.(setup.caseValue);
  if (model === undefined) return undefined;
  if (typeof model === "object" && model !== null && typeof model.respond === "function") return model;
  if (typeof model !== "function") {
    throw new Error(
      `model must be a function of the case giving a @evals/vcr ScriptFunction, a ModelSource or undefined (for case ${setup.caseId} it gave ${describeValue(model)}); for one script for every case, write \`model: () => script\``,
    );
  }
  const { describeThrown, scripted, scriptedGemini, scriptedResponses } = await import("@evals/vcr");
  // A script function answers in the runner's wire format (a `--model` module gives bare functions).
  const inFormat = (
    modelApi === "openai-responses" ? scriptedResponses : modelApi === "gemini" ? scriptedGemini : scripted
  ) as typeof scripted;
  return inFormat(async (request, context) => {
    try {
      return await model(request, context);
    } catch (error) {
      failure.abort(
        new Error(
          `${setup.suite} › ${setup.caseId}: the scripted model threw on call ${context.call}, so the run was stopped (no recording was written or replaced):\n${describeThrown(error)}`,
        ),
      );
      throw error;
    }
  });
}

interface CassetteServed {
  source: ModelSource;
  wire: {
    file: string;
    mode: VcrMode;
    action: "replay" | "record" | "live";
    identity: { suite: string; caseId: string };
  };
  /** The scripted model's own server, when the recording is made from it. */
  upstream?: ModelServer;
}

/**
 * The source of a wire cassette: its recording replayed; or, to record (or run without a
 * recording), the suite's scripted model behind the recording proxy, else the cassette's upstream,
 * else the real API the runner's CLI speaks, with its key (@evals/vcr's apiKeyEnv). Without any of
 * them it says how to get a model.
 */
async function cassetteSource<Case>(
  setup: TrialSetup<Case>,
  option: CassetteOption,
  options: TrialRunOptions,
  prompt: string,
  model: ModelSource | undefined,
  runner: AnyAgentRunner,
): Promise<CassetteServed> {
  const {
    apiKeyEnv,
    CassetteMissingError,
    findRecording,
    modePlan,
    resolveVcrMode,
    startModelServer,
    wireSource,
  } = await import("@evals/vcr");
  // One recording per case: the first trial records it, the others run against the model, unrecorded.
  const mode = resolveVcrMode(setup.trial > 0 && option.mode === "record" ? "off" : option.mode);
  const identity = {
    suite: option.suite ?? setup.suite,
    caseId: cassetteCaseId(setup),
    prompt,
    options: cassetteKeyOptions(options, option, runner.pathOptions),
    ...(option.dir ? { dir: option.dir } : {}),
  };
  const found = findRecording(identity);
  const file = found.file;
  const plan = modePlan(mode, mode !== "off" && found.recording !== undefined);
  const wire = (action: CassetteServed["wire"]["action"]) => ({
    file,
    mode,
    action,
    identity: { suite: identity.suite, caseId: identity.caseId },
  });
  const common = {
    ...identity,
    modelApi: runner.modelApi,
    redact: recordingRedaction(options),
    ...(option.replay ? { replay: option.replay } : {}),
  };
  if (plan === "replay" || plan === "missing") {
    try {
      const chosen = wireSource({ ...common, mode });
      return { source: chosen.source, wire: wire(chosen.action) };
    } catch (error) {
      if (error instanceof CassetteMissingError && model) {
        // vcr's hint says to record the real API; this suite records its scripted model.
        const [missing, , ...others] = error.message.split("\n");
        throw renamed(
          [
            missing,
            "Record it from the suite's scripted model: run with VCR_MODE=record (or auto), then commit the file.",
            ...others,
          ].join("\n"),
          "CassetteMissingError",
          error.file,
        );
      }
      throw error;
    }
  }
  if (model) {
    if (plan === "live") return { source: model, wire: wire("live") };
    const upstream = await startModelServer({ source: model });
    const chosen = wireSource({ ...common, mode: "record", upstream: upstream.url });
    return { source: chosen.source, wire: wire("record"), upstream };
  }
  const keyEnv = apiKeyEnv(runner.modelApi);
  if (!option.upstream && !process.env[keyEnv])
    throw new NoModelToRecordError(setup, file, plan, { cli: runner.cli, keyEnv });
  const chosen = wireSource({ ...common, mode, ...(option.upstream ? { upstream: option.upstream } : {}) });
  return { source: chosen.source, wire: wire(chosen.action) };
}

/** An Error with `message`, named `name` (callers tell setup errors apart by name), for `file`. */
function renamed(message: string, name: string, file: string): Error {
  return Object.assign(new Error(message), { name, file });
}

/** A recording (or a run without one) was asked for, but there is no model to answer it. */
export class NoModelToRecordError extends Error {
  override readonly name = "NoModelToRecordError";
  /** The env var whose key would record the real API of the case's agent (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY). */
  readonly keyEnv: string;
  constructor(
    setup: { suite: string; caseId: string },
    file: string,
    plan: string,
    /** The case's agent CLI (its runner's `cli`) and the env var of its API's key. */
    agent: { cli: string; keyEnv: string },
  ) {
    const shown = relative(process.cwd(), file) || file;
    super(
      [
        `${setup.suite} › ${setup.caseId}: ${plan === "record" ? "recording" : "running"} needs a model, and there is none: no scripted \`model\` is given and ${agent.keyEnv} (the key of ${agent.cli}'s API) is not set.`,
        `- to record from a script, give the suite a scripted model: \`model: (evalCase) => script\` (a @evals/vcr ScriptFunction), then run with VCR_MODE=record;`,
        `- to replay, commit the recording ${shown} and run with VCR_MODE=replay (or strict);`,
        `- to record the real API ${agent.cli} speaks, set ${agent.keyEnv} and run with VCR_MODE=record.`,
      ].join("\n"),
    );
    this.keyEnv = agent.keyEnv;
  }
}

/**
 * After a recording: a model that failed left the old recording in place (the run was not
 * recorded), and says so; otherwise the case's recordings for earlier prompts or options are stale.
 */
async function finishRecording(
  wire: CassetteServed["wire"],
  upstream: ModelServer | undefined,
): Promise<void> {
  const failed = upstream?.interactions.find((interaction) => interaction.error);
  if (failed) {
    throw new Error(
      `the scripted model failed while recording ${wire.file}, so nothing was recorded (an older recording is kept): ${failed.error}`,
    );
  }
  if (!existsSync(wire.file)) return;
  const { siblingCassettes } = await import("@evals/vcr");
  for (const stale of siblingCassettes(wire.file, wire.identity)) rmSync(stale, { force: true });
}

/**
 * A replay that left its recording (or, with `"incomplete"`, stopped before its end) fails the
 * trial, whatever the run then did: the error is the
 * replay's report (where it diverged, how the request differs from the closest recorded one), and it
 * carries the run for the reports.
 */
async function failOnDivergence(
  source: ModelSource,
  result: TrialRunResult,
  wire: { file: string; mode: VcrMode } | undefined,
  fail: boolean | "incomplete" = true,
): Promise<void> {
  const replay = source as Partial<ReplaySource>;
  if (!fail || !Array.isArray(replay.divergences)) return;
  if (typeof replay.report !== "function" || typeof replay.unplayed !== "function") return;
  const incomplete = fail === "incomplete" && replay.unplayed().length > 0;
  if (replay.divergences.length === 0 && !incomplete) return;
  const { ReplayDivergenceError } = await import("@evals/vcr");
  throw new ReplayDivergenceError({
    // It was answered from the recording as far as it went: a replay, not a live run.
    result: { ...result, origin: "replay" },
    mode: wire?.mode ?? "replay",
    action: "replay",
    file: wire?.file ?? "the recording",
    divergences: [...replay.divergences],
    unplayed: replay.unplayed(),
    report: replay.report(),
  });
}

/**
 * What a recording of the run must not contain: the run's own secrets (its env, every value of which
 * is secret, and its redact option). Replaying redacts the new requests the same way, so they match.
 */
function recordingRedaction(options: TrialRunOptions): RedactOptions {
  return { ...options.redact, ...(options.env ? { env: options.env, secretEnv: options.env } : {}) };
}

/**
 * A replayed result (its recording keeps no folder) gets a run folder of its own under this trial's
 * run id, so it can be graded again like a live run. A recorded one already has runAgent's.
 */
function withRunFolder(result: AgentRunResult, options: TrialRunOptions): AgentRunResult {
  if (result.output_dir !== undefined || options.runId === undefined) return result;
  const dir = runFolderPath(options.runId, options.outputRoot);
  mkdirSync(dir, { recursive: true });
  const stored = { ...result, output_dir: dir };
  writeRunFolder(dir, options.runId, { result: stored });
  return stored;
}

/**
 * The options that identify a run in its cassette: the JSON-able ones that change what it does.
 * Paths (the runner's `pathOptions`) are made machine-independent (relative to the cassette folder, or
 * `<cwd>/...` inside the run's folder), so a recording made on one machine is found on another.
 */
export function cassetteKeyOptions(
  options: TrialRunOptions,
  cassette: Pick<CassetteOption, "dir"> = {},
  pathOptions: readonly string[] = [],
): Record<string, unknown> {
  const unkeyed = new Set([
    "prompt",
    "cwd",
    "env",
    "runId",
    "outputRoot",
    "timeoutMs",
    "killGraceMs",
    "signal",
    "baseUrl",
    "apiKey",
    "claudeBin",
    "keepSandbox",
    "onStreamLine",
    "redact",
  ]);
  const base = resolve(cassette.dir ?? "cassettes");
  const cwd = options.cwd !== undefined ? resolve(options.cwd) : undefined;
  const portable = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(portable);
    if (typeof value !== "string" || !isAbsolute(value)) return value;
    const inRun = cwd ? relative(cwd, value) : undefined;
    if (inRun !== undefined && !inRun.startsWith("..") && !isAbsolute(inRun)) {
      return `<cwd>/${inRun.split(sep).join("/")}`;
    }
    return relative(base, value).split(sep).join("/") || ".";
  };
  // The shared and the runner's own options, flat: the key of a run is what it was given, wherever it sits.
  const { options: own, ...shared } = options;
  const keyed: Record<string, unknown> = {};
  for (const [name, value] of Object.entries({ ...shared, ...own })) {
    if (unkeyed.has(name) || value === undefined || typeof value === "function") continue;
    keyed[name] = pathOptions.includes(name) ? portable(value) : value;
  }
  return keyed;
}

/** What a task returned, as an AgentRunResult (a bare Run is wrapped). */
export function asAgentRunResult(
  value: AgentRunResult | Run,
  runId: string,
  durationMs: number,
): AgentRunResult {
  if (value && typeof value === "object" && "run" in value && "run_id" in value) return value;
  if (value && typeof value === "object" && "events" in value && Array.isArray(value.events)) {
    return {
      run_id: value.id ?? runId,
      run: value,
      exit_code: null,
      timed_out: false,
      duration_ms: Math.round(durationMs),
      origin: "stored",
    };
  }
  throw new Error(
    `describeEval: the task must return runAgent's result (an AgentRunResult) or a Run, got ${describeValue(value)}`,
  );
}

function describeValue(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value !== "object") return `a ${typeof value}`;
  return `an object with keys ${Object.keys(value).slice(0, 8).join(", ") || "(none)"}`;
}

/** A file as the results name it: relative to the current folder when inside it, with `/` separators. */
function nearPath(file: string): string {
  const near = relative(process.cwd(), resolve(file));
  return near.startsWith("..") || isAbsolute(near) ? resolve(file) : near.split(sep).join("/");
}
