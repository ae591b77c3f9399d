import { execFile } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { networkRefused } from "@evals/vcr";

const vitestBin = fileURLToPath(new URL("../../../node_modules/vitest/vitest.mjs", import.meta.url));

/** Variables of this test process that must not reach the suite: vitest's own, NODE_OPTIONS, API keys. */
const NOT_PASSED = [
  "VITEST",
  "VITEST_WORKER_ID",
  "VITEST_POOL_ID",
  "NODE_OPTIONS",
  "ANTHROPIC_API_KEY",
  "OPENAI_API_KEY",
  "GEMINI_API_KEY",
];

/** One test of vitest's JSON report. */
export interface VitestTest {
  status: string;
  meta: unknown;
  failureMessages?: string[];
}

export interface VitestSuiteOptions {
  /** Names the run in the error when it wrote no report ("record", "replay"). */
  name: string;
  /** vitest's arguments after `run` (a config, `--root`, a reporter...). */
  args: string[];
  /** The JSON report the suite writes (deleted first, read afterwards). */
  report: string;
  cwd?: string;
  /** Added to this process's environment (less NOT_PASSED). */
  env?: Record<string, string>;
  /** Run inside a network namespace with only loopback (`unshare -rn`), as on an offline CI. */
  offline?: boolean;
  timeoutMs: number;
}

/**
 * Runs a vitest suite in a child process as a user's CI would (no API key, none of this test's
 * vitest variables), and gives its tests (file by file, in order) from the JSON report and what it printed.
 */
export async function runVitestSuite(
  options: VitestSuiteOptions,
): Promise<{ tests: VitestTest[]; output: string }> {
  rmSync(options.report, { force: true });
  const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: "0", ...options.env };
  for (const name of NOT_PASSED) delete env[name];
  const command = [process.execPath, vitestBin, "run", ...options.args];
  const [file, ...args] = options.offline ? networkRefused(command) : command;
  let output = "";
  try {
    const child = await promisify(execFile)(file!, args, {
      ...(options.cwd ? { cwd: options.cwd } : {}),
      env,
      encoding: "utf8",
      timeout: options.timeoutMs,
      maxBuffer: 64 * 1024 * 1024,
    });
    output = `${child.stdout}\n${child.stderr}`;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    output = `${failed.message}\n${failed.stdout ?? ""}\n${failed.stderr ?? ""}`;
  }
  let results: { testResults: Array<{ assertionResults: VitestTest[] }> };
  try {
    results = JSON.parse(readFileSync(options.report, "utf8"));
  } catch {
    throw new Error(`the ${options.name} run wrote no report:\n${output}`);
  }
  return { tests: results.testResults.flatMap((file) => file.assertionResults), output };
}
