import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const script = fileURLToPath(new URL("../fixtures/interrupted-run.mjs", import.meta.url));

export interface InterruptedRunOptions {
  /**
   * The URL of the module whose `runAgent` starts the run: @evals/claude-code's built entry. Given
   * by the test, because test-kit cannot depend on @evals/claude-code (its tests use test-kit).
   */
  runAgentModule: string;
  claudeBin: string;
  cwd: string;
  outputRoot: string;
  /** The test process's environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** How long the CLI may take to start (default 90 s). */
  startTimeoutMs?: number;
}

/**
 * Starts a test process (a child node) whose run waits on a model that never answers, and resolves
 * with it once its CLI is up: the test then kills it mid-run. It is killed when the CLI never starts.
 */
export async function startInterruptedRun(options: InterruptedRunOptions): Promise<ChildProcess> {
  const { runAgentModule, claudeBin, cwd, outputRoot } = options;
  const parent = spawn(process.execPath, [script, runAgentModule, claudeBin, cwd, outputRoot], {
    stdio: ["ignore", "pipe", "inherit"],
    env: options.env ?? process.env,
  });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error("the CLI never started")),
        options.startTimeoutMs ?? 90_000,
      );
      parent.stdout.on("data", (chunk: Buffer) => {
        if (chunk.toString().includes("cli-started")) {
          clearTimeout(timer);
          resolve();
        }
      });
      parent.on("exit", () => reject(new Error("the test process ended early")));
    });
  } catch (error) {
    parent.kill("SIGKILL");
    throw error;
  }
  return parent;
}
