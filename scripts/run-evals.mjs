#!/usr/bin/env node
// `npm run eval`: every project's eval target through Nx (replayed, offline), then one summary of
// what ran: cases, trials, passed and failed, where the reports are, and why suites were skipped.
import { availableParallelism } from "node:os";
import { childrenCpuMs, evalReportFiles, evalSummary } from "./eval-summary.mjs";
import { projectDirs, removeStale, runNx, WORKSPACE } from "./workspace-reports.mjs";

const projects = projectDirs();
removeStale(evalReportFiles(projects));
// As many eval tasks at once as the machine has cores: their time is mostly CPU (vitest and the
// claude CLI starting), so a fixed 6 on 2 cores only made the load 16 and the first run slower.
// `npm run eval -- --parallel=<n>` still chooses.
const parallel = process.argv.some((arg) => arg.startsWith("--parallel"))
  ? []
  : [`--parallel=${availableParallelism()}`];
const started = performance.now();
const cpuBefore = childrenCpuMs();
const nxStatus = runNx("eval", [...parallel, ...process.argv.slice(2)]);
const cpuAfter = childrenCpuMs();
const timing = {
  wallMs: performance.now() - started,
  ...(cpuBefore !== undefined && cpuAfter !== undefined ? { cpuMs: cpuAfter - cpuBefore } : {}),
};
// Built by the eval targets' dependencies: the with/without comparisons are printed as tables.
const logging = await import("@evals/logging").catch(() => undefined);
const summary = evalSummary({
  root: WORKSPACE,
  projects,
  nxStatus,
  timing,
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
