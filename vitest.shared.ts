import { defineConfig } from "vitest/config";

/**
 * The vitest setup every package uses. Besides the console reporter it writes
 * test-results/vitest.json, which the root test command sums up at the end of a run
 * (and which Nx caches as the test target's output).
 */
export function packageTests(
  options: { include?: string[]; testTimeout?: number; reportName?: string } = {},
) {
  return defineConfig({
    test: {
      include: options.include ?? ["src/**/*.test.ts", "test/**/*.test.ts"],
      testTimeout: options.testTimeout ?? 30_000,
      hookTimeout: options.testTimeout ?? 30_000,
      pool: "forks",
      reporters: ["default", ["json", { outputFile: `test-results/${options.reportName ?? "vitest"}.json` }]],
      env: { FORCE_COLOR: "0" },
    },
  });
}

/** The eval target's config: vitest over *.eval.ts, with its own report file. */
export function packageEvals(options: { include?: string[]; testTimeout?: number } = {}) {
  return packageTests({
    include: options.include ?? ["**/*.eval.ts"],
    testTimeout: options.testTimeout ?? 120_000,
    reportName: "eval/vitest",
  });
}
