import { dirname, join } from "node:path";
import {
  RUN_FOLDER_FILES,
  type RunFolderCase,
  type RunFolderManifest,
  type RunResultFields,
} from "@evals/core";
import { type CaseEvaluation, evaluate, evaluateStream } from "../cases/evaluate.js";
import { parseCase } from "../cases/load.js";
import type { EvalCase } from "../cases/schema.js";
import { defaultRuleRegistry, type RuleRegistry } from "../rules/registry.js";
import { caseWithOutcome } from "../scorers.js";
import { failOnHarnessError, judgeAsHarness } from "./harness-grading.js";
import { ReadWholeInstead, type StoredRun, type StreamedRunSource } from "./load-run.js";

/** The verdict the harness stored in a run folder's manifest. */
export type HarnessVerdict = NonNullable<RunFolderCase["grading"]>["verdict"];

/** A stored run graded again: the evaluation, and the verdict the harness stored (a run folder's). */
export interface GradedRun {
  evaluation: CaseEvaluation;
  harnessVerdict?: HarnessVerdict;
}

/**
 * Why a stored run cannot be graded without a case given: it holds none (only a run folder the
 * harness wrote does), or the one it holds is not an @evals/evaluators case (describeEval's own data).
 */
export class NoGradableCaseError extends Error {
  override readonly name = "NoGradableCaseError";
  constructor(
    readonly reason: "no-case" | "not-a-case",
    message: string,
    readonly harnessVerdict?: HarnessVerdict,
  ) {
    super(message);
  }
}

/**
 * Grades a stored run (see loadStoredRun) against `evalCase`, or, without one, against the case the
 * harness stored in its run folder, judged as the harness judged it (its thresholds and outcome); a
 * trial the harness marked error (a replay that diverged) fails with its reason. Throws
 * NoGradableCaseError when no case is given and the run holds none that can be graded. `rules` is the
 * registry of the rules the case may name (default: the built-in rules).
 */
export async function gradeStoredRun(
  stored: StoredRun,
  evalCase?: EvalCase,
  rules: RuleRegistry = defaultRuleRegistry,
): Promise<GradedRun> {
  const recorded = stored.manifest?.case;
  const chosen = evalCase ?? storedCase(stored.manifest, stored.file, rules);
  // The run must end as the harness expected it to (the suite's outcome option) unless the case says.
  // The whole stored result when there is one: its exit code and timeout are part of the outcome.
  const evaluated = await evaluate(
    stored.result ?? stored.run,
    caseWithOutcome(chosen, recorded?.grading?.outcome),
    rules,
  );
  return asTheHarnessJudged(evaluated, evalCase, recorded?.grading, rules);
}

/**
 * The evaluation as the harness judged it: the stored case (no `evalCase` given) with the thresholds
 * it used, and the verdict it stored (a trial it marked error fails with its reason).
 */
function asTheHarnessJudged(
  evaluation: CaseEvaluation,
  evalCase: EvalCase | undefined,
  grading: RunFolderCase["grading"],
  rules: RuleRegistry,
): GradedRun {
  const judged = !evalCase && grading ? judgeAsHarness(evaluation, grading, rules) : evaluation;
  const harnessVerdict = grading?.verdict;
  return harnessVerdict
    ? { evaluation: failOnHarnessError(judged, harnessVerdict), harnessVerdict }
    : { evaluation: judged };
}

/** A run graded while it was read: as gradeStoredRun's, with the run as reports see it. */
export interface StreamGradedRun extends GradedRun {
  /** The run read (without its events when every evaluator visited it), as a StoredRun for reports. */
  stored: StoredRun;
  /** How many tool calls the run made. */
  toolCalls: number;
}

/**
 * Grades a stored run while it is read (streamedRunSource: a stream-json file, bare or a run
 * folder's, or a run folder's result.json) against `evalCase`, or, without one, against the case
 * the harness stored in its run folder judged as the harness judged it, as gradeStoredRun grades it
 * (the outcome the harness expected, its verdict): a long run is graded in bounded memory when every
 * rule of the case visits (see evaluateStream). Throws NoGradableCaseError as gradeStoredRun does.
 * Undefined when a fact came too late to grade it so, or when a .json given alone, whose first
 * field is `run_id`, is no valid stored result (a cassette may be): grade it with loadStoredRun and
 * gradeStoredRun instead.
 */
export async function gradeWhileReading(
  source: StreamedRunSource,
  evalCase?: EvalCase,
  rules: RuleRegistry = defaultRuleRegistry,
): Promise<StreamGradedRun | undefined> {
  const recorded = source.manifest?.case;
  const grading = recorded?.grading;
  const chosen = evalCase ?? storedCase(source.manifest, source.file, rules);
  let inOrder = true;
  let result: RunResultFields | undefined;
  let streamed: Awaited<ReturnType<typeof evaluateStream>>;
  try {
    streamed = await evaluateStream(
      (sink) => {
        const read = source.read(sink);
        inOrder = read?.inOrder ?? true;
        result = read?.fields;
      },
      caseWithOutcome(chosen, grading?.outcome),
      rules,
      { resultFields: () => result },
    );
  } catch (error) {
    if (error instanceof ReadWholeInstead) return undefined;
    throw error;
  }
  if (!streamed || !inOrder) return undefined;
  return {
    ...asTheHarnessJudged(streamed.evaluation, evalCase, grading, rules),
    stored: {
      run: streamed.run,
      file: source.file,
      format: source.format,
      ...(result ? { result: { ...(result as RunResultFields), run: streamed.run } } : {}),
      ...(source.manifest ? { manifest: source.manifest } : {}),
      warnings: source.warnings,
    },
    toolCalls: streamed.toolCalls,
  };
}

/** The case the harness stored in the run folder's manifest (beside `file`, the run's). */
function storedCase(manifest: RunFolderManifest | undefined, file: string, rules: RuleRegistry): EvalCase {
  const recorded = manifest?.case;
  if (!recorded)
    throw new NoGradableCaseError(
      "no-case",
      `${file} holds no case: only a run folder written by the harness does`,
    );
  // The case is in the run folder's manifest, beside the file the run was read from.
  const manifestFile = join(dirname(file), RUN_FOLDER_FILES.manifest);
  try {
    return parseCase(recorded.value, `the case stored in ${manifestFile}`, rules);
  } catch (error) {
    throw new NoGradableCaseError(
      "not-a-case",
      `the run folder's case ${JSON.stringify(recorded.id)} is not an @evals/evaluators case, so it cannot be graded without one\n${(error as Error).message}`,
      recorded.grading?.verdict,
    );
  }
}
