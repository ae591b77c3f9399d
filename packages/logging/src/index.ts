// The public API of @evals/logging: each statement names what one module publishes, and nothing else of
// the package is public. The whole surface as published (declarations and types) is checked in as
// api/<name>.api.md (API Extractor); `npm run api` writes it again after a change.
export { writeFileAtomic } from "./atomic-write.js";
export { buildResults, withRunsIncluded } from "./build-results.js";
export { aggregateScores, type CaseResultInput, caseResult } from "./case-builder.js";
export {
  type CaseResult,
  CaseResultSchema,
  type CaseStatus,
  type CaseViolation,
  type EvalTestMeta,
  EvalTestMetaSchema,
  type Score,
  type TrialResult,
  type TrialStats,
} from "./case-result.js";
export {
  countViolations,
  failureSummary,
  firstLine,
  type ViolationCounts,
  violationLabel,
} from "./case-summary.js";
export { type CasesTableOptions, formatCasesTable } from "./cases-table.js";
export { type ComparisonHtmlOptions, renderComparisonHtml } from "./compare-html.js";
export {
  compareResults,
  formatComparisonTable,
  formatDifference,
  formatMetricDelta,
  formatSide,
  type ResultsComparison,
  ResultsComparisonSchema,
} from "./compare-results.js";
export { compareRates, newcombeInterval, passRate } from "./compare-stats.js";
// Small formatters shared by the console output, the vitest table and the HTML report.
export { formatCost, formatDuration, formatPercent, plural, truncate } from "./format.js";
// Versions of the file formats defined here.
export { RESULTS_VERSION } from "./format-version.js";
export { type GitInfo, gitInfo } from "./git-info.js";
export { cut, reportIndex, textPrefix } from "./html-data.js";
export { type HtmlReportOptions, renderHtmlReport } from "./html-report.js";
export {
  fieldPath,
  parseResults,
  ResultsFileError,
  readResults,
  slug,
  writeJsonResults,
} from "./json-results.js";
export { type LoggingFormatName, loggingFormats, loggingJsonSchema } from "./json-schemas.js";
export { renderJunit } from "./junit.js";
export { formatRunLog, LiveLogger, logModeFromEnv } from "./live-logger.js";
export {
  type MergedShards,
  type MergeShardsOptions,
  mergeShardResults,
  ShardMergeError,
  type ShardResults,
} from "./merge-shards.js";
export { caseOrigin, type OriginLabel, originLabel, paidFor } from "./origin.js";
export {
  type ResultsFile,
  ResultsFileSchema,
  type ResultsShard,
  ResultsShardSchema,
  summarize,
  tally,
} from "./results-file.js";
export {
  type RunComparisonFolder,
  readRunComparisons,
  runComparisonFolders,
  VARIANTS_FOLDER,
} from "./run-comparisons.js";
export { describeToolInput, errorEnding, outputText } from "./run-format.js";
export { type FormatTreeOptions, formatSessionTree } from "./session-format.js";
export {
  buildSessionTree,
  DELEGATION_TOOLS,
  type Delegation,
  type SessionChange,
  type SessionNode,
  SessionTracker,
  type SessionTrackerOptions,
  type SessionTree,
} from "./session-tracker.js";
export {
  formatShard,
  parseShard,
  SHARD_ENV,
  SHARD_PROVIDE_KEY,
  type Shard,
  shardFromEnv,
  shardResultsDir,
} from "./shard.js";
// What a console stream can show:
export { shouldUseColor } from "./terminal.js";
export { trialScore, trialStatistics, wilsonInterval } from "./trial-stats.js";
export { EvalReporter, type EvalReporterOptions } from "./vitest-reporter.js";
export { type WrittenReports, writeReports } from "./write-reports.js";
