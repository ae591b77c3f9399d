#!/usr/bin/env node
// The README's test command: every project's build, typecheck, lint, publishability check, tests
// and (offline, replayed) eval suites through Nx, then one summary of every vitest report, so the
// output ends with the test runner's totals whatever Nx served from its cache.
import { join, relative } from "node:path";
import {
  existing,
  projectDirs,
  readVitestReport,
  removeStale,
  runNx,
  WORKSPACE,
} from "./workspace-reports.mjs";

const targets = process.env.EVALS_TEST_TARGETS ?? "build,typecheck,lint,publint,test,eval";
const reportsOf = (dir) =>
  existing([join(dir, "test-results", "vitest.json"), join(dir, "test-results", "eval", "vitest.json")]);
const projects = projectDirs();

removeStale(projects.flatMap(reportsOf));
const nxStatus = runNx(targets, process.argv.slice(2));

const totals = { passed: 0, failed: 0, skipped: 0 };
const rows = [];
const failures = [];
for (const dir of projects) {
  for (const file of reportsOf(dir)) {
    const report = readVitestReport(file);
    totals.passed += report.passed;
    totals.failed += report.failed;
    totals.skipped += report.skipped;
    failures.push(...report.failures);
    rows.push(
      `  ${relative(WORKSPACE, file).padEnd(58)} ${String(report.passed).padStart(5)} passed ${String(report.failed).padStart(3)} failed ${String(report.skipped).padStart(3)} skipped`,
    );
  }
}
const nxFailed = nxStatus !== 0;
// The failures again, at the end, where a CI log's tail shows them.
if (failures.length > 0) console.log(`\nFailed tests:\n${failures.join("\n")}`);
console.log("\nTest reports:");
console.log(rows.length > 0 ? rows.join("\n") : "  (none found)");
if (nxFailed)
  console.log(`\nNx exited with ${nxStatus}: a build, typecheck, lint or test target failed (see above).`);
if (nxFailed && totals.failed === 0) totals.failed = 1;
console.log(`\nTests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(nxFailed || totals.failed > 0 ? 1 : 0);
