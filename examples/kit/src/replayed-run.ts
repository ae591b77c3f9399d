import { existsSync, rmSync } from "node:fs";
import { relative } from "node:path";
import type { EvalCase } from "@evals/evaluators";
import type { RunAgentResult, TrialContext } from "@evals/harness";
import {
  asReplayed,
  CassetteMissingError,
  type ModelServer,
  type ModelSource,
  modePlan,
  type ReplaySource,
  recordingPath,
  resolveVcrMode,
  type ScriptFunction,
  scripted,
  siblingCassettes,
  startModelServer,
  type VcrMode,
  wireSource,
} from "@evals/vcr";
import { copyFixture, removeAtExit } from "./fixture.js";
import { recordingIdentity, runOptionsOf } from "./run-options.js";

export interface ReplayedRunOptions {
  /** The suite's name: the recordings' sub-folder. */
  suite: string;
  /** The case to run: its prompt, `agent` options and fixture. */
  evalCase: EvalCase;
  /** The folder of the suite's recordings (`<dir>/<suite>/<case>.<hash>.recording.json`). */
  cassettes: string;
  /**
   * The scripted agent behind the recording: what the model answers at each step. Needed to record
   * (VCR_MODE=record, or auto without a recording) and to run without recordings (VCR_MODE=off).
   */
  agent?: ScriptFunction;
  /** record | replay | auto | strict | off. Default: VCR_MODE, else replay. */
  mode?: VcrMode;
  /** How to record or re-record (shown when a recording is missing or stale). */
  recordHint?: string;
}

/** The modes of the example suites: VCR_MODE, else replay (never a live API: the model is scripted). */
export function exampleMode(mode?: VcrMode, env: NodeJS.ProcessEnv = process.env): VcrMode {
  return resolveVcrMode(mode, { ...env, VCR_MODE: env.VCR_MODE || "replay" });
}

/** A case's recording is missing: it was never recorded, or its prompt or options changed since. */
export class RecordingMissingError extends Error {
  override readonly name = "RecordingMissingError";
  constructor(
    readonly file: string,
    readonly others: string[],
    hint: string,
  ) {
    const shown = (path: string) => relative(process.cwd(), path) || path;
    const lines = [`No recording at ${shown(file)}.`];
    if (others.length > 0) {
      lines.push(
        `${others.map(shown).join(", ")} was recorded for another prompt or other agent options of this case, so it no longer applies.`,
      );
    }
    lines.push(`Record it from the suite's scripted agent: ${hint}, then commit the file.`);
    super(lines.join("\n"));
  }
}

/** The recording did not match this run: the replay report says where and how. */
export class ReplayMismatchError extends Error {
  override readonly name = "ReplayMismatchError";
}

/**
 * One trial of an example case: the real `claude` CLI (through the trial's runAgent, so it gets the
 * trial's run id, timeout and capture hooks) in a fresh copy of the case's fixture, its model
 * answered by the case's recording. The copy stays until the process exits, so scorers can look at
 * what the agent left in it (the run's `cwd`). In record mode the suite's scripted agent answers instead,
 * through @evals/vcr's recording proxy, which writes the recording.
 *
 * A replayed run's result has `origin: "replay"`.
 *
 * A replay that leaves the recording (a request it does not hold, or requests it never got to)
 * throws a ReplayMismatchError with @evals/vcr's report: the case, its fixture or the CLI changed
 * since the recording was made.
 */
export async function replayedRun(
  trial: Pick<TrialContext<unknown>, "runAgent">,
  options: ReplayedRunOptions,
): Promise<RunAgentResult> {
  const { evalCase } = options;
  const mode = exampleMode(options.mode);
  const identity = recordingIdentity(options.suite, evalCase);
  const hint = options.recordHint ?? "VCR_MODE=record";
  const wire = { ...identity, dir: options.cassettes };
  const recording = recordingPath(wire);
  let plan = modePlan(mode, existsSync(recording));
  // "replay" without a recording would run the scripted agent unrecorded: say it is missing instead.
  if (plan === "live" && mode !== "off") plan = "missing";

  const agent = () => {
    if (!options.agent) {
      throw new Error(
        `case ${evalCase.id} has no scripted agent: add one to the suite's agents to ${plan === "record" ? "record" : "run"} it`,
      );
    }
    return scripted(options.agent);
  };

  let upstream: ModelServer | undefined;
  let source: ModelSource;
  if (plan === "missing") {
    throw new RecordingMissingError(recording, siblingCassettes(recording), hint);
  } else if (plan === "live") {
    source = agent();
  } else if (plan === "record") {
    upstream = await startModelServer({ source: agent() });
    ({ source } = wireSource({ ...wire, mode: "record", upstream: upstream.url }));
  } else {
    try {
      ({ source } = wireSource({ ...wire, mode: "strict" }));
    } catch (error) {
      if (error instanceof CassetteMissingError)
        throw new RecordingMissingError(error.file, error.others, hint);
      throw error;
    }
  }

  const cwd = copyFixture(evalCase.agent.fixture);
  let server: ModelServer | undefined;
  let result: RunAgentResult;
  try {
    server = await startModelServer({ source });
    result = await trial.runAgent({ ...runOptionsOf(evalCase), cwd, baseUrl: server.url });
  } finally {
    await server?.close();
    await upstream?.close();
    removeAtExit(cwd);
  }

  if (plan === "replay") {
    const replay = source as ReplaySource;
    if (replay.divergences.length > 0 || replay.unplayed().length > 0) {
      throw new ReplayMismatchError(
        `${replay.report()}\nIf the change is intended, record the case again: ${hint}.`,
      );
    }
  }
  if (plan === "record" && upstream) {
    const failed = upstream.interactions.find((interaction) => interaction.error);
    if (failed) throw new Error(`the scripted agent failed while recording: ${failed.error}`);
    // The case's recordings for earlier prompts or options are stale now.
    for (const stale of siblingCassettes(recording)) rmSync(stale, { force: true });
  }
  // Reports show a replay as replayed: its model was not called, its cost not spent.
  return plan === "replay" ? asReplayed(result) : result;
}
