import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, resolve } from "node:path";
import { assertRunId, newRunId, runFolderPath } from "@evals/core";
import { OUTCOME_FILE, type Outcome, readOutcome } from "./outcome.js";
import { resolveRepo } from "./repo.js";
import { type Trial, type TrialOptions, withTrialWorktree } from "./trial.js";

/**
 * Calls `fn` on every item with at most `concurrency` calls in flight and resolves with every result,
 * in the items' order, as PromiseSettledResults: one failure never stops the others.
 */
export async function runWithConcurrency<I, O>(
  items: readonly I[],
  concurrency: number,
  fn: (item: I, index: number) => O | Promise<O>,
): Promise<PromiseSettledResult<O>[]> {
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`concurrency must be a whole number of at least 1, got ${concurrency}`);
  }
  const results: PromiseSettledResult<O>[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      try {
        results[index] = { status: "fulfilled", value: await fn(items[index]!, index) };
      } catch (reason) {
        results[index] = { status: "rejected", reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}

export interface RunTrialsOptions extends Omit<TrialOptions, "testId"> {
  /** How many trials (default 1), or their test ids (each must be a safe run id). */
  trials?: number | readonly string[];
  /** Trials running at once (default: the number of CPUs, at most the number of trials). */
  concurrency?: number;
}

/** One trial's report from runTrials. */
export type TrialReport<T> = {
  index: number;
  testId: string;
  /** The trial's output folder (events.jsonl, outcome.json, outcome.patch). */
  outputDir: string;
  durationMs: number;
  /** The worktree's changes, when captured. */
  outcome?: Outcome;
} & ({ ok: true; value: T } | { ok: false; error: unknown });

/**
 * Runs `fn` in `trials` trials, each in its own worktree and output folder (see withTrialWorktree),
 * at most `concurrency` at a time. Resolves with one report per trial, in order; a failing trial is
 * reported (`ok: false`) and never stops the others.
 */
export async function runTrials<T>(
  repo: string,
  options: RunTrialsOptions,
  fn: (trial: Trial, index: number) => T | Promise<T>,
): Promise<TrialReport<T>[]> {
  const { trials = 1, concurrency, ...trialOptions } = options;
  const testIds =
    typeof trials === "number"
      ? Array.from({ length: trials }, (_, index) => newRunId(`${options.name ?? "trial"}-${index + 1}`))
      : [...trials];
  for (const id of testIds) assertRunId(id, "test id");
  const { root } = await resolveRepo(repo);
  const outputRoot = resolve(options.outputRoot ?? root);
  const limit = concurrency ?? Math.max(1, Math.min(availableParallelism(), testIds.length));

  const settled = await runWithConcurrency(testIds, limit, async (testId, index) => {
    const started = performance.now();
    try {
      const value = await withTrialWorktree(root, { ...trialOptions, outputRoot, testId }, (trial) =>
        fn(trial, index),
      );
      return { ok: true as const, value, durationMs: performance.now() - started };
    } catch (error) {
      return { ok: false as const, error, durationMs: performance.now() - started };
    }
  });

  return settled.map((result, index): TrialReport<T> => {
    const testId = testIds[index]!;
    const outputDir = runFolderPath(testId, outputRoot);
    const outcome = existsSync(join(outputDir, OUTCOME_FILE)) ? safeReadOutcome(outputDir) : undefined;
    // The worker never throws (it reports errors as values), so every result is fulfilled.
    const report =
      result.status === "fulfilled"
        ? result.value
        : { ok: false as const, error: result.reason, durationMs: 0 };
    return { index, testId, outputDir, ...(outcome ? { outcome } : {}), ...report };
  });
}

function safeReadOutcome(outputDir: string): Outcome | undefined {
  try {
    return readOutcome(outputDir);
  } catch {
    return undefined;
  }
}
