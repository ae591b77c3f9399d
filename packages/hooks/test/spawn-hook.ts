import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The BUILT hook executable (Nx builds the package before its tests). */
export const hookBin = fileURLToPath(new URL("../dist/evals-hook.cjs", import.meta.url));

export interface HookRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface HookSpawnOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Leave stdin open (never closed) instead of writing `stdin` and closing it. */
  keepStdinOpen?: boolean;
  args?: string[];
  timeoutMs?: number;
}

/** Runs the built hook once with `stdin`, in a clean env (plus `env`); kills it after a timeout. */
export function runHook(stdin: string | Buffer, options: HookSpawnOptions = {}): Promise<HookRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [hookBin, ...(options.args ?? [])], {
      cwd: options.cwd ?? tmpdir(),
      env: { PATH: process.env.PATH, FORCE_COLOR: "0", ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk) => {
      stderr += chunk;
    });
    // The hook may exit before reading everything (TEST_MODE off): that is not an error.
    child.stdin.on("error", () => {});
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 20_000);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    if (options.keepStdinOpen) child.stdin.write(stdin);
    else child.stdin.end(stdin);
  });
}

/** Runs `tasks` with at most `limit` at a time; results in task order. */
export async function withConcurrency<T>(limit: number, tasks: (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, tasks.length) }, async () => {
    while (next < tasks.length) {
      const index = next++;
      results[index] = await (tasks[index] as () => Promise<T>)();
    }
  });
  await Promise.all(workers);
  return results;
}

/** A fresh temporary folder, removed by the returned cleanup. */
export function tempDir(prefix: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `evals-hooks-${prefix}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
