import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll } from "vitest";
import type { z } from "zod";
import {
  type FakeGemini,
  type OffloaderEnvOptions,
  offloaderEnv,
  startFakeGemini,
} from "../src/testing/index.js";

export const PLUGIN_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const DIST = join(PLUGIN_ROOT, "dist");

export type ScriptName = "launcher" | "init" | "query" | "session" | "memory" | "status" | "sync";

export interface ScriptRun {
  exitCode: number | null;
  json: Record<string, unknown>;
  stdout: string;
  stderr: string;
  durationMs: number;
}

export interface RunOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Text piped to the script's stdin (then closed). "open" leaves a pipe open and silent. */
  stdin?: string | "open";
  /** Safety net: the test fails rather than hangs (default 150 s, then SIGTERM). */
  killAfterMs?: number;
}

/** Runs one built script the way the skill does (`node dist/<script>.js ...`) and parses its JSON. */
export function runScript(script: ScriptName, args: string[], options: RunOptions): Promise<ScriptRun> {
  const file = join(DIST, `${script}.js`);
  if (!existsSync(file)) throw new Error(`${file} is missing: build the plugin first (npm run build)`);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, ...args], {
      cwd: options.cwd,
      env: options.env,
      stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    if (typeof options.stdin === "string" && options.stdin !== "open") child.stdin?.end(options.stdin);
    // SIGTERM first: the script then stops its Gemini process group before exiting.
    let hardKill: NodeJS.Timeout | undefined;
    const guard = setTimeout(() => {
      child.kill("SIGTERM");
      hardKill = setTimeout(() => child.kill("SIGKILL"), 5_000);
    }, options.killAfterMs ?? 150_000);
    child.on("error", reject);
    child.on("close", (exitCode) => {
      clearTimeout(guard);
      clearTimeout(hardKill);
      child.stdin?.destroy();
      let json: Record<string, unknown>;
      try {
        json = JSON.parse(stdout) as Record<string, unknown>;
      } catch {
        reject(
          new Error(
            `${script} ${args.join(" ")} printed no JSON (exit ${exitCode}).\nstdout: ${stdout}\nstderr: ${stderr}`,
          ),
        );
        return;
      }
      resolve({ exitCode, json, stdout, stderr, durationMs: Date.now() - started });
    });
  });
}

/** Parses a script's output with one of the result schemas, failing with the output when it does not fit. */
export function expectShape<T>(schema: z.ZodType<T>, json: unknown): T {
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new Error(
      `output does not match the schema:\n${parsed.error.message}\noutput: ${JSON.stringify(json, null, 2)}`,
    );
  }
  return parsed.data;
}

const scratchRoot = mkdtempSync(join(tmpdir(), "gemini-offloader-test-"));
afterAll(() => {
  try {
    rmSync(scratchRoot, { recursive: true, force: true, maxRetries: 3 });
  } catch {
    // A Gemini still exiting may write a last file: the OS temp folder cleans up the rest.
  }
});

let counter = 0;

/** A fresh base folder and project folder for one test. */
export function workspace(label = "case"): { base: string; project: string } {
  counter += 1;
  const root = realpathSync(scratchRoot);
  const base = join(root, `${label}-${counter}`, "base");
  const project = join(root, `${label}-${counter}`, "project");
  mkdirSync(base, { recursive: true });
  mkdirSync(project, { recursive: true });
  return { base, project };
}

/** One fake Gemini API for a test file: tests share it, each matching rules on its own prompt text. */
export function fakeGeminiForFile() {
  let server: FakeGemini | undefined;
  beforeAll(async () => {
    server = await startFakeGemini();
  });
  afterAll(async () => server?.close());
  const started = () => {
    if (!server) throw new Error("the fake Gemini is not running (use it inside tests)");
    return server;
  };
  return {
    get server(): FakeGemini {
      return started();
    },
    /** The scripts' environment for a base folder, pointed at this fake. */
    env(base: string, options: Omit<OffloaderEnvOptions, "geminiUrl" | "base"> = {}): NodeJS.ProcessEnv {
      return offloaderEnv({ geminiUrl: started().url, base, ...options });
    },
  };
}
