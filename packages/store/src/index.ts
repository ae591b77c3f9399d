// The public API of @evals/store: each statement names what one module publishes, and nothing else of
// the package is public. The whole surface as published is checked in as api/store.api.md.
export {
  type BaselineOptions,
  type CaseChange,
  compareStoredRuns,
  findBaselineRun,
  incomparabilities,
  latestRun,
  type PassRate,
  type RateDifference,
  type RunDeltas,
  type StoredCaseComparison,
  type StoredRunComparison,
  type StoredRunInfo,
  type StoredSideComparison,
  storedRun,
} from "./compare-runs.js";
export { LockTimeoutError } from "./file-lock.js";
export { type FlakyCase, type FlakyQuery, type FlakyRun, findFlakyCases, formatFlaky } from "./flaky.js";
export { type GithubReport, type GithubReportOptions, githubReport } from "./github-summary.js";
export { caseHistory, formatHistory, sparkline } from "./history.js";
export {
  type DigestRun,
  type DigestVerdict,
  HISTORY_DIGEST_VERSION,
  historyDigestFile,
  historyFromDigest,
  readHistoryDigest,
} from "./history-digest.js";
export {
  HistoryDigestHeaderSchema,
  HistoryDigestRunSchema,
  historyDigestJsonSchemas,
} from "./history-digest-schema.js";
export type { CaseHistory, CaseRun, HistoryQuery } from "./history-types.js";
export { type ImportedFile, importResults } from "./import-results.js";
export {
  DB_URL_ENV,
  describeLocation,
  type LocateOptions,
  locateStore,
  type StoreLocation,
} from "./location.js";
export { SchemaTooNewError } from "./migrate.js";
export {
  type QueuedRunsOutcome,
  queueRun,
  RECORD_QUEUE_ENV,
  REJECTED_QUEUE_FOLDER,
  recordQueuedRuns,
} from "./record-queue.js";
export { type RecordRunOptions, type RecordRunOutcome, recordRun } from "./record-run.js";
export { refreshHistoryDigest } from "./refresh-history-digest.js";
export { type RunFiles, type RunSource, runId } from "./run-rows.js";
export { SCHEMA_VERSION } from "./schema.js";
export {
  firstDivergence,
  type Step,
  type StepDivergence,
  type TrialKey,
  trialSteps,
} from "./step-divergence.js";
export { type OpenStoreOptions, type RecordedRun, Store } from "./store.js";
export { StoreOnDemand, type StoreOnDemandOptions } from "./store-on-demand.js";
