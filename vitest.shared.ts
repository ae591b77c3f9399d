import { defineConfig } from "vitest/config";

type Reporter = string | [string, Record<string, unknown>];

/**
 * The vitest setup every package uses. Besides the console reporter it writes
 * test-results/vitest.json, which the root test command sums up at the end of a run
 * (and which Nx caches as the test target's output).
 */
export function packageTests(
  options: {
    include?: string[];
    testTimeout?: number;
    reportName?: string;
    reporters?: Reporter[];
    maxWorkers?: number;
    external?: RegExp[];
    env?: Record<string, string>;
  } = {},
) {
  return defineConfig({
    test: {
      include: options.include ?? ["src/**/*.test.ts", "test/**/*.test.ts"],
      testTimeout: options.testTimeout ?? 60_000,
      hookTimeout: options.testTimeout ?? 60_000,
      pool: "forks",
      ...(options.maxWorkers ? { maxWorkers: options.maxWorkers } : {}),
      ...(options.external ? { server: { deps: { external: options.external } } } : {}),
      reporters: [
        "default",
        ["json", { outputFile: `test-results/${options.reportName ?? "vitest"}.json` }],
        ...(options.reporters ?? []),
      ],
      // Tests record no runs in the workspace's results database (.evals/db): a test that checks
      // recording names its own database (--db).
      env: { FORCE_COLOR: "0", EVALS_DB_URL: "off", ...options.env },
    },
  });
}

/**
 * The built JavaScript of the workspace's own packages (packages/*\/dist, plugins/*\/dist). Vite
 * would transform it module by module like source, since the workspace links resolve outside
 * node_modules; Node loads it as it is, as it does for any installed package (about 2 s less per
 * vitest start on this machine).
 */
export const WORKSPACE_DIST = /\/(packages|plugins)\/[^/]+\/dist\//;

/**
 * How many eval files of a project run at once. An eval file spends its time waiting on the claude
 * CLI and the loopback model servers it starts, not in its own worker, so the default (one worker
 * less than the cores: one, here) left a project's files waiting in line behind each other.
 */
export const EVAL_WORKERS = 3;

/**
 * The eval target's config: vitest over *.eval.ts, with its own report file, and @evals/store's
 * reporter (@evals/logging's, recording each run in the results database), which prints each suite's
 * table of cases and writes results/latest.json, the history, junit.xml and report.html (the eval
 * target's outputs). A project with an eval target lists @evals/store among its devDependencies, so
 * Nx builds it first. The workspace packages load as
 * built (WORKSPACE_DIST) and up to EVAL_WORKERS files run at once.
 */
export function packageEvals(
  options: { include?: string[]; testTimeout?: number; maxWorkers?: number } = {},
) {
  return packageTests({
    include: options.include ?? ["**/*.eval.ts"],
    testTimeout: options.testTimeout ?? 120_000,
    reportName: "eval/vitest",
    reporters: [["@evals/store/reporter", {}]],
    // Unlike tests, eval runs are recorded (by the reporter, where EVALS_DB_URL says, else .evals/db).
    env: { EVALS_DB_URL: process.env.EVALS_DB_URL ?? "" },
    maxWorkers: options.maxWorkers ?? EVAL_WORKERS,
    external: [WORKSPACE_DIST],
  });
}
