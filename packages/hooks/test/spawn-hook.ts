import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The BUILT hook executable (Nx builds the package before its tests). */
export const hookBin = fileURLToPath(new URL("../dist/evals-hook.cjs", import.meta.url));
/** The fast shell entry (it hands over to the built Node hook when it must). */
export const hookShell = fileURLToPath(new URL("../bin/evals-hook.sh", import.meta.url));
/** The dash the shell entry runs under, when installed. */
export const dash = ["/bin/dash", "/usr/bin/dash"].find((file) => existsSync(file));

/** Both entries when dash is installed, else the Node one. */
export const ENTRIES: HookEntry[] = dash ? ["node", "shell"] : ["node"];
export type HookEntry = "node" | "shell";

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
  /** Which entry runs: the Node hook (default) or the shell entry under dash. */
  entry?: HookEntry;
  /** Extra Node options for the Node hook (e.g. `--require` a stub). */
  nodeOptions?: string[];
}

/** Runs the built hook once with `stdin`, in a clean env (plus `env`); kills it after a timeout. */
export function runHook(stdin: string | Buffer, options: HookSpawnOptions = {}): Promise<HookRun> {
  return new Promise((resolve, reject) => {
    const [command, args] =
      options.entry === "shell"
        ? [dash as string, [hookShell, process.execPath, ...(options.args ?? [])]]
        : [process.execPath, [hookBin, ...(options.args ?? [])]];
    const nodeOptions = options.nodeOptions ? { NODE_OPTIONS: options.nodeOptions.join(" ") } : {};
    const child = spawn(command, args, {
      cwd: options.cwd ?? tmpdir(),
      env: { PATH: process.env.PATH, FORCE_COLOR: "0", ...nodeOptions, ...options.env },
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
