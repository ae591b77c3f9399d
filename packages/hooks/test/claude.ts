import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The real claude CLI (2.1.330) installed at the workspace root. */
export const CLAUDE_BIN = fileURLToPath(new URL("../../../node_modules/.bin/claude", import.meta.url));

export interface ClaudeRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** The stream-json lines of stdout. */
  lines: Record<string, unknown>[];
}

export interface Sandbox {
  /** A fresh folder holding HOME, CLAUDE_CONFIG_DIR, TMPDIR and the project. */
  home: string;
  /** The project folder claude runs in. */
  project: string;
  cleanup(): void;
}

export function sandbox(): Sandbox {
  const home = mkdtempSync(join(tmpdir(), "evals-hooks-claude-"));
  const project = join(home, "project");
  mkdirSync(project);
  mkdirSync(join(home, "tmp"));
  return { home, project, cleanup: () => rmSync(home, { recursive: true, force: true }) };
}

/**
 * Runs `claude -p PROMPT --output-format stream-json --verbose ARGS` hermetically: HOME,
 * CLAUDE_CONFIG_DIR and TMPDIR inside the sandbox, no nonessential traffic, stdin closed, killed
 * after a timeout. `env` adds ANTHROPIC_BASE_URL, TEST_MODE, ...
 */
export async function runClaude(
  box: Sandbox,
  options: { prompt: string; args?: string[]; env?: Record<string, string>; timeoutMs?: number },
): Promise<ClaudeRun> {
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: box.home,
    CLAUDE_CONFIG_DIR: join(box.home, ".claude"),
    TMPDIR: join(box.home, "tmp"),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    CLAUDE_CODE_MAX_RETRIES: "1",
    ANTHROPIC_API_KEY: "sk-test-dummy",
    FORCE_COLOR: "0",
    ...options.env,
  };
  const child = spawn(
    CLAUDE_BIN,
    ["-p", options.prompt, "--output-format", "stream-json", "--verbose", ...(options.args ?? [])],
    { cwd: box.project, env, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk) => {
    stderr += chunk;
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 120_000);
  const exitCode = await new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve(code));
  }).finally(() => clearTimeout(timer));
  const lines = stdout
    .split("\n")
    .filter((line) => line.trim().startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { exitCode, stdout, stderr, lines };
}
