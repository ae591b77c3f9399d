#!/usr/bin/env node
// `npm run eval`: every project's eval target through Nx (replayed, offline), then one summary of
// what ran: cases, trials, passed and failed, where the reports are, and why suites were skipped.
import { evalReportFiles, evalSummary } from "./eval-summary.mjs";
import { projectDirs, removeStale, runNx, WORKSPACE } from "./workspace-reports.mjs";

const projects = projectDirs();
removeStale(evalReportFiles(projects));
// Up to 6 eval tasks at once: most of their time is the claude CLI starting and waiting, not CPU.
const nxStatus = runNx("eval", ["--parallel=6", ...process.argv.slice(2)]);
// Built by the eval targets' dependencies: the with/without comparisons are printed as tables.
const logging = await import("@evals/logging").catch(() => undefined);
const summary = evalSummary({
  root: WORKSPACE,
  projects,
  nxStatus,
  ...(logging
    ? {
        formatComparison: (comparison) =>
          logging.formatComparisonTable(comparison, {
            width: process.stdout.columns ?? Number.POSITIVE_INFINITY,
          }),
      }
    : {}),
});
console.log(summary.text);
process.exit(summary.failed ? 1 : 0);
