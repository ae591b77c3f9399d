#!/usr/bin/env node
// The README's test command: every project's build, typecheck, lint, publishability check, tests
// and (offline, replayed) eval suites through Nx, then one summary of every vitest report, so the
// output ends with the test runner's totals whatever Nx served from its cache.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join, relative } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const targets = process.env.EVALS_TEST_TARGETS ?? "build,typecheck,lint,publint,test,eval";
const projectDirs = ["packages", "plugins", "tools", "examples"]
  .flatMap((group) =>
    existsSync(join(root, group))
      ? readdirSync(join(root, group)).map((name) => join(root, group, name))
      : [],
  )
  .concat(existsSync(join(root, "e2e")) ? [join(root, "e2e")] : []);
const reportsOf = (dir) =>
  [join(dir, "test-results", "vitest.json"), join(dir, "test-results", "eval", "vitest.json")].filter(
    (file) => existsSync(file),
  );

// Reports from an earlier run must not be counted: Nx writes (or restores from cache) fresh ones.
for (const dir of projectDirs) for (const file of reportsOf(dir)) rmSync(file);

const nx = spawnSync(
  join(root, "node_modules", ".bin", "nx"),
  ["run-many", "-t", targets, "--outputStyle=static", ...process.argv.slice(2)],
  { cwd: root, stdio: "inherit" },
);

const totals = { passed: 0, failed: 0, skipped: 0 };
const rows = [];
const failures = [];
for (const dir of projectDirs) {
  for (const file of reportsOf(dir)) {
    const report = JSON.parse(readFileSync(file, "utf8"));
    const passed = report.numPassedTests ?? 0;
    const failed =
      (report.numFailedTests ?? 0) + (report.numFailedTestSuites && !report.numFailedTests ? 1 : 0);
    const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
    totals.passed += passed;
    totals.failed += failed;
    totals.skipped += skipped;
    for (const suite of report.testResults ?? []) {
      const where = relative(root, suite.name ?? file);
      const failedTests = (suite.assertionResults ?? []).filter((test) => test.status === "failed");
      for (const test of failedTests)
        failures.push(`  ${where} > ${test.fullName}\n${firstLines(test.failureMessages?.[0])}`);
      if (suite.status === "failed" && failedTests.length === 0)
        failures.push(`  ${where}\n${firstLines(suite.message)}`);
    }
    rows.push(
      `  ${relative(root, file).padEnd(58)} ${String(passed).padStart(5)} passed ${String(failed).padStart(3)} failed ${String(skipped).padStart(3)} skipped`,
    );
  }
}
const nxFailed = nx.status !== 0;
// The failures again, at the end, where a CI log's tail shows them.
if (failures.length > 0) console.log(`\nFailed tests:\n${failures.join("\n")}`);
console.log("\nTest reports:");
console.log(rows.length > 0 ? rows.join("\n") : "  (none found)");
if (nxFailed)
  console.log(
    `\nNx exited with ${nx.status ?? nx.signal}: a build, typecheck, lint or test target failed (see above).`,
  );
if (nxFailed && totals.failed === 0) totals.failed = 1;
console.log(`\nTests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(nxFailed || totals.failed > 0 ? 1 : 0);

/** The first lines of a failure message, indented, without colour codes. */
function firstLines(message, count = 6) {
  if (!message) return "";
  return message
    .replace(/\u001b\[[0-9;]*m/g, "")
    .split("\n")
    .slice(0, count)
    .map((line) => `      ${line}`)
    .join("\n");
}
