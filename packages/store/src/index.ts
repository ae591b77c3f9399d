// The public API of @evals/store: each statement names what one module publishes, and nothing else of
// the package is public. The whole surface as published is checked in as api-report.md.
export { LockTimeoutError } from "./file-lock.js";
export {
  type CaseHistory,
  type CaseRun,
  caseHistory,
  formatHistory,
  type HistoryQuery,
  sparkline,
} from "./history.js";
export { type ImportedFile, importResults } from "./import-results.js";
export {
  DB_URL_ENV,
  describeLocation,
  type LocateOptions,
  locateStore,
  type StoreLocation,
} from "./location.js";
export { SchemaTooNewError } from "./migrate.js";
export { type RecordRunOptions, type RecordRunOutcome, recordRun } from "./record-run.js";
export { type RunFiles, type RunSource, runId } from "./run-rows.js";
export { SCHEMA_VERSION } from "./schema.js";
export { type OpenStoreOptions, type RecordedRun, Store } from "./store.js";
