import type { AgentRunResult } from "./agent-run.js";
import type { Run } from "./run.js";

/** How much of the CLI's stderr a result keeps: its end, where the error is. */
const STDERR_LIMIT = 20_000;

/** What every runner's result of a live run adds to AgentRunResult. */
export interface LiveRunFields {
  /** The (last) command that ran: the executable and its arguments. */
  command: string[];
  /** The run's private folder, when it was kept. */
  sandbox_dir?: string;
  /** One sentence on what went wrong, when something did. */
  error?: string;
}

/**
 * The result of a run of a real CLI, the same fields for every runner (redact it before it leaves
 * the runner). `entered` is when the runner was called (performance.now()); `stderr` is trimmed and
 * cut to its last 20,000 characters.
 */
export function liveRunResult(input: {
  runId: string;
  outputDir: string;
  run: Run;
  exitCode: number | null;
  timedOut: boolean;
  entered: number;
  stderr: string;
  command: string[];
  sandboxDir?: string | undefined;
  error?: string | undefined;
}): AgentRunResult & LiveRunFields {
  const stderr = input.stderr.trim();
  return {
    run_id: input.runId,
    output_dir: input.outputDir,
    run: input.run,
    exit_code: input.exitCode,
    timed_out: input.timedOut,
    duration_ms: Math.round(performance.now() - input.entered),
    ...(stderr ? { stderr: stderr.length > STDERR_LIMIT ? `…${stderr.slice(-STDERR_LIMIT)}` : stderr } : {}),
    origin: "live",
    command: input.command,
    ...(input.sandboxDir ? { sandbox_dir: input.sandboxDir } : {}),
    ...(input.error ? { error: input.error } : {}),
  };
}
