// What the root commands share: the workspace's projects, Nx, and the vitest reports the projects
// write (test-results/vitest.json for tests, test-results/eval/vitest.json for eval suites).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join, relative } from "node:path";

/** The workspace root (this script's parent folder). */
export const WORKSPACE = new URL("..", import.meta.url).pathname;

/** Every project folder of the workspace at `root`: packages/*, plugins/*, tools/*, examples/*, e2e. */
export function projectDirs(root = WORKSPACE) {
  return ["packages", "plugins", "tools", "examples"]
    .flatMap((group) =>
      existsSync(join(root, group))
        ? readdirSync(join(root, group), { withFileTypes: true })
            .filter((entry) => entry.isDirectory())
            .map((entry) => join(root, group, entry.name))
        : [],
    )
    .concat(existsSync(join(root, "e2e")) ? [join(root, "e2e")] : []);
}

/** The files among `files` that exist. */
export const existing = (files) => files.filter((file) => existsSync(file));

/** Deletes reports of an earlier run, so only what Nx writes (or restores from its cache) is counted. */
export function removeStale(files) {
  for (const file of existing(files)) rmSync(file);
}

/** `nx run-many -t <targets> --outputStyle=static <args>` in the workspace, its output shown; the exit status. */
export function runNx(targets, args = [], root = WORKSPACE) {
  const nx = spawnSync(
    join(root, "node_modules", ".bin", "nx"),
    ["run-many", "-t", targets, "--outputStyle=static", ...args],
    { cwd: root, stdio: "inherit" },
  );
  return nx.status ?? nx.signal;
}

/**
 * A vitest JSON report: its counts, each failed test (or file that failed to load) with the first
 * lines of its error, and the reasons tests were skipped for (a test's `meta.skipReason`, which
 * @evals/harness's skipIfNoClaude sets) with how many tests each.
 */
export function readVitestReport(file, root = WORKSPACE) {
  const report = JSON.parse(readFileSync(file, "utf8"));
  const passed = report.numPassedTests ?? 0;
  const failed =
    (report.numFailedTests ?? 0) + (report.numFailedTestSuites && !report.numFailedTests ? 1 : 0);
  const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  const failures = [];
  const skipReasons = new Map();
  for (const suite of report.testResults ?? []) {
    const where = relative(root, suite.name ?? file);
    const tests = suite.assertionResults ?? [];
    const failedTests = tests.filter((test) => test.status === "failed");
    for (const test of failedTests)
      failures.push(`  ${where} > ${test.fullName}\n${firstLines(test.failureMessages?.[0])}`);
    if (suite.status === "failed" && failedTests.length === 0)
      failures.push(`  ${where}\n${firstLines(suite.message)}`);
    for (const test of tests) {
      const reason = test.meta?.skipReason;
      if (typeof reason === "string" && test.status !== "passed" && test.status !== "failed")
        skipReasons.set(reason, (skipReasons.get(reason) ?? 0) + 1);
    }
  }
  return { passed, failed, skipped, failures, skipReasons };
}

/** The first lines of a failure message, indented, without colour codes. */
export function firstLines(message, count = 6) {
  if (!message) return "";
  return message
    .replace(/\u001b\[[0-9;]*m/g, "")
    .split("\n")
    .slice(0, count)
    .map((line) => `      ${line}`)
    .join("\n");
}
