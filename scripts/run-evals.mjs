#!/usr/bin/env node
// `npm run eval`: every project's eval target through Nx (replayed, offline), then one summary of
// what ran: cases, trials, passed and failed, where the reports are, and why suites were skipped.
import { mkdirSync, readdirSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
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
// Each suite's reporter leaves its run here, and all are recorded in the results database at the
// end, in one open of it (opening it cost every suite ~0.4 s of CPU). The folder outlives the run:
// what an interrupted run queued is recorded by the next one (recording a run twice adds it once).
const queue = join(WORKSPACE, ".evals", "record-queue");
mkdirSync(queue, { recursive: true });
process.env.EVALS_RECORD_QUEUE = queue;
const started = performance.now();
const cpuBefore = childrenCpuMs();
const ownCpuBefore = process.cpuUsage();
const nxStatus = runNx("eval", [...parallel, ...process.argv.slice(2)]);
// Built by the eval targets' dependencies, like @evals/logging below.
const store = await import("@evals/store").catch((error) => {
  if (error?.code !== "ERR_MODULE_NOT_FOUND") throw error;
  return undefined;
});
if (store) {
  // Recording never changes the verdict: a failure here is a warning, and the summary still prints.
  await store.recordQueuedRuns(queue).catch((error) => {
    console.error(`evals: warning: the suites' runs in ${queue} were not recorded: ${error.message}`);
  });
} else if (readdirSync(queue).some((name) => name.endsWith(".json")))
  console.error(
    `evals: @evals/store is not built, so this run's suites wait in ${queue} to be recorded by the next npm run eval`,
  );
const cpuAfter = childrenCpuMs();
const ownCpu = process.cpuUsage(ownCpuBefore);
const timing = {
  wallMs: performance.now() - started,
  // The suites' CPU and this process's own (the recording).
  ...(cpuBefore !== undefined && cpuAfter !== undefined
    ? { cpuMs: cpuAfter - cpuBefore + (ownCpu.user + ownCpu.system) / 1000 }
    : {}),
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
