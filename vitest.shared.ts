import { defineConfig } from "vitest/config";

type Reporter = string | [string, Record<string, unknown>];

/**
 * The vitest setup every package uses. Besides the console reporter it writes
 * test-results/vitest.json, which the root test command sums up at the end of a run
 * (and which Nx caches as the test target's output).
 */
export function packageTests(
  options: { include?: string[]; testTimeout?: number; reportName?: string; reporters?: Reporter[] } = {},
) {
  return defineConfig({
    test: {
      include: options.include ?? ["src/**/*.test.ts", "test/**/*.test.ts"],
      testTimeout: options.testTimeout ?? 30_000,
      hookTimeout: options.testTimeout ?? 30_000,
      pool: "forks",
      reporters: [
        "default",
        ["json", { outputFile: `test-results/${options.reportName ?? "vitest"}.json` }],
        ...(options.reporters ?? []),
      ],
      env: { FORCE_COLOR: "0" },
    },
  });
}

/**
 * The eval target's config: vitest over *.eval.ts, with its own report file, and @evals/logging's
 * reporter, which prints each suite's table of cases and writes results/latest.json, the history,
 * junit.xml and report.html (the eval target's outputs). A project with an eval target lists
 * @evals/logging among its devDependencies, so Nx builds it first.
 */
export function packageEvals(options: { include?: string[]; testTimeout?: number } = {}) {
  return packageTests({
    include: options.include ?? ["**/*.eval.ts"],
    testTimeout: options.testTimeout ?? 120_000,
    reportName: "eval/vitest",
    reporters: [["@evals/logging/reporter", {}]],
  });
}
