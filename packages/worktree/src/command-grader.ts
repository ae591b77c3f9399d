import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import {
  type EvaluatorResult,
  type Evidence,
  evaluatorResult,
  type Scorer,
  type ScorerInput,
  type Violation,
} from "@evals/core";
import { runProcess } from "./process.js";

export interface CommandGraderOptions {
  /**
   * The command: a string runs through the shell (`sh -c`), an array runs a program with its
   * arguments and no shell (e.g. `["npm", "test"]`).
   */
  command: string | readonly string[];
  /** The evaluator's name in the result (default "command"). */
  name?: string;
  /** Extra environment variables (FORCE_COLOR=0 is always set, so output stays plain). */
  env?: Record<string, string>;
  /** Folder to run in, relative to the worktree (default: the worktree's top folder). */
  cwd?: string;
  /** Kill the command (and everything it started) after this many ms (default 120,000). */
  timeoutMs?: number;
  /** The exit code that means "pass" (default 0). */
  expectExitCode?: number;
  /** Keep at most this many bytes of the tail of stdout and of stderr in the result (default 64 KB). */
  maxOutputBytes?: number;
  /** Stops the command when aborted. */
  signal?: AbortSignal;
}

const SHELL: [string, string[]] =
  process.platform === "win32" ? [process.env.ComSpec ?? "cmd.exe", ["/d", "/s", "/c"]] : ["/bin/sh", ["-c"]];

/**
 * Runs a command in the trial's worktree (e.g. the project's own tests, after the agent finished) and
 * turns its exit status and output into an evaluator result: score 1 and passed when it exits with
 * `expectExitCode`, else score 0 with a violation that says how it failed and ends with its output.
 * Never throws for a failing or missing command: that is a failed result.
 */
export async function runCommandGrader(
  worktreePath: string,
  options: CommandGraderOptions,
): Promise<EvaluatorResult> {
  const name = options.name ?? "command";
  const shown = typeof options.command === "string" ? options.command : options.command.join(" ");
  const cwd = resolve(worktreePath, options.cwd ?? ".");
  const expected = options.expectExitCode ?? 0;
  if (!existsSync(cwd) || !statSync(cwd).isDirectory()) {
    const message =
      `cannot run \`${shown}\`: ${cwd} does not exist. A command grader must run while the trial's worktree ` +
      "exists: inside withTrialWorktree's callback (trial.grade), before the worktree is removed.";
    return failed(name, shown, cwd, "missing-worktree", message, {});
  }
  const [file, args] =
    typeof options.command === "string"
      ? [SHELL[0], [...SHELL[1], options.command]]
      : [options.command[0] ?? "", options.command.slice(1)];
  const result = await runProcess(file, args, {
    cwd,
    env: { ...process.env, ...options.env, FORCE_COLOR: "0" },
    timeoutMs: options.timeoutMs ?? 120_000,
    maxOutputBytes: options.maxOutputBytes ?? 64 * 1024,
    ownProcessGroup: true,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const metadata = {
    command: shown,
    cwd,
    exit_code: result.exitCode,
    signal: result.signal,
    timed_out: result.timedOut,
    duration_ms: Math.round(result.durationMs),
    output_truncated: result.truncated,
  };
  const evidence: Evidence[] = [
    {
      type: "command-output",
      description: `stdout and stderr of \`${shown}\`${result.truncated ? " (tail)" : ""}`,
      data: { stdout: result.stdout, stderr: result.stderr },
    },
  ];

  if (result.spawnError) {
    return failed(
      name,
      shown,
      cwd,
      "not-started",
      `\`${shown}\` could not start: ${result.spawnError.message}`,
      metadata,
    );
  }
  if (result.timedOut) {
    const message = `\`${shown}\` did not finish within ${options.timeoutMs ?? 120_000} ms and was killed`;
    return failed(name, shown, cwd, "timeout", withTail(message, result), metadata, evidence);
  }
  if (result.aborted) {
    return failed(
      name,
      shown,
      cwd,
      "aborted",
      withTail(`\`${shown}\` was stopped`, result),
      metadata,
      evidence,
    );
  }
  if (result.exitCode !== expected) {
    const how =
      result.exitCode === null ? `was killed by ${result.signal}` : `exited with ${result.exitCode}`;
    const message = `\`${shown}\` ${how} (expected ${expected}) in ${cwd}`;
    return failed(name, shown, cwd, "exit-code", withTail(message, result), metadata, evidence);
  }
  return evaluatorResult({ evaluator: name, passed: true, score: 1, evidence, metadata });
}

export interface CommandScorerOptions extends CommandGraderOptions {
  /**
   * The worktree to run in: a path, or a function of the scorer input. Default: the run's `cwd`
   * (the folder the agent worked in).
   */
  worktree?: string | ((input: ScorerInput) => string | undefined);
  /** The score a case needs (see @evals/core Scorer). */
  threshold?: number;
}

/**
 * The command grader as a @evals/core Scorer, for describeEval's `scorers`. It must run while the trial's
 * worktree still exists, i.e. inside withTrialWorktree's callback.
 */
export function commandScorer(options: CommandScorerOptions): Scorer {
  const name = options.name ?? "command";
  return {
    name,
    ...(options.threshold !== undefined ? { threshold: options.threshold } : {}),
    async score(input) {
      const worktree =
        typeof options.worktree === "function"
          ? options.worktree(input)
          : (options.worktree ?? input.run.cwd);
      if (!worktree) {
        const shown = typeof options.command === "string" ? options.command : options.command.join(" ");
        return failed(
          name,
          shown,
          "",
          "missing-worktree",
          `cannot run \`${shown}\`: the run has no cwd; pass \`worktree\` to commandScorer`,
          {},
        );
      }
      return runCommandGrader(worktree, options);
    },
  };
}

function withTail(message: string, result: { stdout: string; stderr: string }): string {
  const tail = lastLines(result.stderr.trim() || result.stdout.trim(), 20);
  return tail ? `${message}:\n${tail}` : message;
}

function lastLines(text: string, count: number): string {
  const lines = text.split("\n");
  return (lines.length > count ? ["...", ...lines.slice(-count)] : lines).join("\n");
}

function failed(
  name: string,
  command: string,
  cwd: string,
  type: string,
  message: string,
  metadata: Record<string, unknown>,
  evidence: Evidence[] = [],
): EvaluatorResult {
  const violation: Violation = { rule: name, type, severity: "error", message, evidence: { command, cwd } };
  return evaluatorResult({
    evaluator: name,
    passed: false,
    score: 0,
    violations: [violation],
    evidence,
    metadata: { command, cwd, ...metadata },
  });
}
