// The public API of @evals/worktree: each statement names what one module publishes, and nothing else of
// the package is public. The whole surface as published (declarations and types) is checked in as
// api/<name>.api.md (API Extractor); `npm run api` writes it again after a change.
export {
  type CommandGraderOptions,
  type CommandScorerOptions,
  commandScorer,
  runCommandGrader,
} from "./command-grader.js";
// What went wrong, as a code a caller can branch on.
export { isWorktreeError, WorktreeError, type WorktreeErrorCode } from "./errors.js";
// The exit-cleanup helper lives in @evals/core (one for every package); re-exported for compatibility.
export { pendingExitCleanups } from "./exit-cleanup.js";
export {
  checkFixture,
  copyFixture,
  createFixtureCopy,
  type FixtureCopy,
  type FixtureProblem,
} from "./fixture.js";
export { type WorktreeFileFormatName, worktreeFileFormats, worktreeJsonSchema } from "./json-schemas.js";
export {
  type CaptureOutcomeOptions,
  captureOutcome,
  captureOutcomeSync,
  type Outcome,
  OutcomeSchema,
  readOutcome,
  readOutcomePatch,
} from "./outcome.js";
export { type RunTrialsOptions, runTrials, runWithConcurrency, type TrialReport } from "./pool.js";
export {
  type CleanupReport,
  type CleanupStaleOptions,
  cleanupDeadTrials,
  cleanupStale,
  type DeadTrialsReport,
} from "./stale.js";
export { type SetupWorktreeTestEnvOptions, setupWorktreeTestEnv, type WorktreeTestEnv } from "./test-env.js";
export { type Trial, type TrialOptions, withTrialWorktree } from "./trial.js";
export { type TrialMetadata, TrialMetadataSchema } from "./trial-metadata.js";
export {
  type CreateWorktreeOptions,
  createWorktree,
  type DirtyPolicy,
  listWorktrees,
  pruneWorktrees,
  removeWorktree,
  type Worktree,
  type WorktreeInfo,
} from "./worktrees.js";
