import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import type { EvaluatorResult, Redactor } from "@evals/core";
import { assertRunId, newRunId, runFolderPath } from "@evals/core";
import { type CommandGraderOptions, runCommandGrader } from "./command-grader.js";
import { WorktreeError } from "./errors.js";
import { registerExitCleanup } from "./exit-cleanup.js";
import { captureOutcome, captureOutcomeSync, type Outcome } from "./outcome.js";
import { resolveRepo } from "./repo.js";
import { cleanupDeadTrialsOnce } from "./stale.js";
import { CASSETTE_FOLDER, setupWorktreeTestEnv, type WorktreeTestEnv } from "./test-env.js";
import { type CreateWorktreeOptions, createWorktree } from "./worktrees.js";

export interface TrialOptions extends CreateWorktreeOptions {
  /**
   * Root of the run's output folder (`<outputRoot>/test-output/<testId>`). Default: the repository's
   * top folder, so outputs outlive the worktree and sit where the harness and reports look for them.
   */
  outputRoot?: string;
  /** The cassette folder given to the run (default `<repository>/cassettes`, in the main checkout). */
  cassetteDir?: string;
  /** Fail the trial with TRIAL_TIMEOUT after this many ms; `trial.signal` aborts first. */
  timeoutMs?: number;
  /** After an abort or timeout, how long the callback gets to wind down before clean-up (default 5,000). */
  graceMs?: number;
  /** Stops the trial (its `signal` aborts, it fails with TRIAL_INTERRUPTED). */
  signal?: AbortSignal;
  /** Save the worktree's changes to the run folder when the callback ends (default true). */
  captureOutcome?: boolean;
  /** Keep the worktree for inspection: never (default), on-failure, always. Ctrl-C always removes it. */
  keep?: "never" | "on-failure" | "always";
  /**
   * Secrets to keep out of outcome.json and outcome.patch (an agent may write one into a file): a
   * `@evals/core` redactor, asked when the outcome is written.
   */
  redact?: Pick<Redactor, "text">;
}

/** What the callback of withTrialWorktree gets: one trial's worktree, env and output folder. */
export interface Trial {
  testId: string;
  /** The worktree: run the agent here (cwd). */
  path: string;
  /** The checkout the worktree was made from. */
  repo: string;
  ref: string;
  /** The commit checked out (a snapshot commit with dirty: "include"). */
  base: string;
  /** `<outputRoot>/test-output/<testId>`: events.jsonl, outcome.json, outcome.patch. */
  outputDir: string;
  cassetteDir: string;
  /** The env to add to the agent's: TEST_MODE, TEST_RUN_ID, CLAUDE_PROJECT_DIR, EVALS_OUTPUT_DIR, EVALS_CASSETTE_DIR. */
  env: WorktreeTestEnv;
  /** Aborts on timeout or interrupt: pass it to runAgent so the agent stops. */
  signal: AbortSignal;
  /** Saves the worktree's changes now (outcome.json + outcome.patch) and returns them. */
  captureOutcome(): Promise<Outcome>;
  /** Runs a command grader in the worktree. */
  grade(options: CommandGraderOptions): Promise<EvaluatorResult>;
}

/**
 * Runs `fn` in a fresh git worktree of `repo` at `options.ref`: creates the worktree and the run's output
 * folder, calls `fn(trial)`, saves the worktree's changes to the output folder (unless `fn` already did
 * with `trial.captureOutcome()`), and removes the worktree on success, failure, timeout and interrupt
 * alike. Resolves with what `fn` returns; rejects with `fn`'s error, or a WorktreeError
 * (TRIAL_TIMEOUT, TRIAL_INTERRUPTED, or a creation error, in which case nothing is left behind).
 */
export async function withTrialWorktree<T>(
  repo: string,
  options: TrialOptions,
  fn: (trial: Trial) => T | Promise<T>,
): Promise<T> {
  const testId = options.testId ?? newRunId(options.name ?? "trial");
  assertRunId(testId, "test id");
  const { root } = await resolveRepo(repo);
  const outputRoot = resolve(options.outputRoot ?? root);
  const outputDir = runFolderPath(testId, outputRoot);
  if (existsSync(outputDir) && readdirSync(outputDir).length > 0) {
    throw new WorktreeError(
      "ID_IN_USE",
      `Test id ${JSON.stringify(testId)} is already in use: ${outputDir} holds another run's files. Use a new id.`,
      { testId, outputDir },
    );
  }

  if (options.signal?.aborted) {
    throw new WorktreeError("TRIAL_INTERRUPTED", `Trial ${testId} was stopped before it started.`, {
      testId,
    });
  }
  // Worktrees of earlier trials whose process was killed (kill -9) go first: only ours, only dead owners.
  await cleanupDeadTrialsOnce(root, options.treesDir);
  const worktree = await createWorktree(root, { ...options, testId });
  const controller = new AbortController();
  const timer =
    options.timeoutMs !== undefined
      ? setTimeout(() => {
          controller.abort(
            new WorktreeError(
              "TRIAL_TIMEOUT",
              `Trial ${testId} did not finish within ${options.timeoutMs} ms.`,
              {
                testId,
                path: worktree.path,
              },
            ),
          );
        }, options.timeoutMs)
      : undefined;
  const onOuterAbort = () =>
    controller.abort(
      new WorktreeError("TRIAL_INTERRUPTED", `Trial ${testId} was stopped.`, {
        testId,
        cause: options.signal?.reason,
      }),
    );
  if (options.signal?.aborted) onOuterAbort();
  else options.signal?.addEventListener("abort", onOuterAbort, { once: true });
  // On Ctrl-C the worktree is removed at once; tell the callback to stop too.
  const unregisterInterrupt = registerExitCleanup(
    (reason) =>
      controller.abort(
        new WorktreeError("TRIAL_INTERRUPTED", `Trial ${testId} was interrupted (${reason}).`, { testId }),
      ),
    "kill",
  );

  let captured: Promise<Outcome> | undefined;
  const captureOptions = {
    base: worktree.base,
    outputDir,
    testId,
    ...(options.redact ? { redactor: options.redact } : {}),
  };
  // On Ctrl-C nothing asynchronous runs any more: the outcome is saved synchronously, after the
  // processes are stopped and before the worktree is removed.
  const unregisterSave = registerExitCleanup(() => {
    if (options.captureOutcome === false || captured !== undefined) return;
    captureOutcomeSync(worktree.path, captureOptions);
  }, "save");
  let failed = true;
  try {
    const cassetteDir = resolve(options.cassetteDir ?? join(root, CASSETTE_FOLDER));
    const env = await setupWorktreeTestEnv(worktree.path, testId, { outputRoot, cassetteDir });
    const trial: Trial = {
      testId,
      path: worktree.path,
      repo: root,
      ref: worktree.ref,
      base: worktree.base,
      outputDir,
      cassetteDir,
      env,
      signal: controller.signal,
      captureOutcome() {
        captured = captureOutcome(worktree.path, captureOptions);
        return captured;
      },
      grade(graderOptions) {
        return runCommandGrader(worktree.path, { signal: controller.signal, ...graderOptions });
      },
    };
    const value = await settleOrAbort(
      Promise.resolve().then(() => fn(trial)),
      controller.signal,
      options.graceMs ?? 5_000,
    );
    if (options.captureOutcome !== false && captured === undefined) await trial.captureOutcome();
    else if (captured) await captured;
    failed = false;
    return value;
  } catch (error) {
    // Keep the outcome of a failed or timed-out trial too: it shows how far the agent got.
    if (options.captureOutcome !== false && captured === undefined) {
      await captureOutcome(worktree.path, captureOptions).catch(() => undefined);
    }
    throw error;
  } finally {
    if (timer) clearTimeout(timer);
    options.signal?.removeEventListener("abort", onOuterAbort);
    unregisterInterrupt();
    unregisterSave();
    const keep = options.keep ?? "never";
    if (keep === "never" || (keep === "on-failure" && !failed)) await worktree.remove();
    else worktree.keep();
  }
}

/**
 * Resolves or rejects as `work` does, unless `signal` aborts: then it rejects with the abort reason
 * (a stopped trial never counts as passed) as soon as `work` settles, or after `graceMs` at the latest.
 */
async function settleOrAbort<T>(work: Promise<T>, signal: AbortSignal, graceMs: number): Promise<T> {
  let grace: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => {
      grace = setTimeout(() => reject(signal.reason), graceMs);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    const value = await Promise.race([work, aborted]);
    if (signal.aborted) throw signal.reason;
    return value;
  } catch (error) {
    throw signal.aborted ? signal.reason : error;
  } finally {
    if (grace) clearTimeout(grace);
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}
