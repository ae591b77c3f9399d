import type { Reporter } from "vitest/node";
import { startVitest } from "vitest/node";

/** What one test of a fixture suite ended with. */
export interface FixtureTest {
  state: string | undefined;
  errors: string[];
  meta: Record<string, unknown>;
}

/**
 * Runs the suites of a fixture folder with vitest's own API (no config file) and returns every test
 * by its full name, in the order vitest declared them.
 */
export async function runFixtureSuites(options: {
  root: string;
  include: string[];
  env?: Record<string, string>;
  testTimeout?: number;
  reporters?: Reporter[];
}): Promise<Map<string, FixtureTest>> {
  const vitest = await startVitest(
    "test",
    [],
    {
      root: options.root,
      config: false,
      include: options.include,
      watch: false,
      reporters: options.reporters ?? [{}],
      env: options.env ?? {},
      ...(options.testTimeout !== undefined ? { testTimeout: options.testTimeout } : {}),
    },
    { logLevel: "silent" },
  );
  const tests = new Map<string, FixtureTest>();
  try {
    for (const module of vitest.state.getTestModules()) {
      for (const testCase of module.children.allTests()) {
        const result = testCase.result();
        tests.set(testCase.fullName, {
          state: result.state,
          errors: (result.errors ?? []).map((error) => error.message),
          meta: testCase.meta() as Record<string, unknown>,
        });
      }
    }
  } finally {
    await vitest.close();
  }
  return tests;
}
