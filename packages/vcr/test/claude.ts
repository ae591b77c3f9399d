import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type Run, runFromStreamJson } from "@evals/core";

/** The real claude CLI installed at the workspace root. */
export const CLAUDE_BIN = resolve(__dirname, "../../../node_modules/.bin/claude");

export interface ClaudeRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  lines: Array<Record<string, unknown>>;
  run: Run;
}

export interface ClaudeRunOptions {
  prompt: string;
  /** ANTHROPIC_BASE_URL etc. */
  env: Record<string, string>;
  args?: string[];
  /** The project folder, relative to the run's fresh home (default `project`). */
  folder?: string;
  /** Prepare the project folder before the run. */
  setup?: (cwd: string) => void;
  /** Look at the project folder after the run (it is deleted afterwards). */
  inspect?: (cwd: string) => void;
  timeoutMs?: number;
}

/**
 * Runs `claude -p PROMPT --output-format stream-json --verbose` hermetically: a fresh HOME,
 * CLAUDE_CONFIG_DIR, TMPDIR and project folder, stdin closed, no nonessential traffic.
 */
export async function runClaude(options: ClaudeRunOptions): Promise<ClaudeRun> {
  const home = mkdtempSync(join(tmpdir(), "vcr-claude-"));
  const cwd = join(home, options.folder ?? "project");
  mkdirSync(cwd, { recursive: true });
  mkdirSync(join(home, "tmp"));
  options.setup?.(cwd);
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, ".claude"),
    TMPDIR: join(home, "tmp"),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    CLAUDE_CODE_MAX_RETRIES: "1",
    FORCE_COLOR: "0",
    ...options.env,
  };
  const child = spawn(
    CLAUDE_BIN,
    ["-p", options.prompt, "--output-format", "stream-json", "--verbose", ...(options.args ?? [])],
    { cwd, env, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 60_000);
  const exitCode = await new Promise<number | null>((done) => child.on("close", (code) => done(code)));
  clearTimeout(timer);
  const lines = stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const run = runFromStreamJson(lines, { prompts: [options.prompt] });
  try {
    options.inspect?.(cwd);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  return { exitCode, stdout, stderr, lines, run };
}
