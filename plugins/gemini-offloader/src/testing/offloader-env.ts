import { accessSync, constants, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/**
 * The real Gemini CLI installed with the workspace (`@google/gemini-cli`, pinned), as an
 * executable path for GEMINI_BIN.
 */
export function geminiCliPath(): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve("@google/gemini-cli/package.json");
  const pkg = JSON.parse(readFileSync(manifest, "utf8")) as { bin?: string | Record<string, string> };
  const relative = typeof pkg.bin === "string" ? pkg.bin : pkg.bin?.gemini;
  if (!relative) throw new Error(`${manifest} names no \`gemini\` executable`);
  const path = join(dirname(manifest), relative);
  accessSync(path, constants.X_OK);
  return path;
}

export interface OffloaderEnvOptions {
  /** The fake Gemini API (or any server) Gemini talks to. */
  geminiUrl: string;
  /** The plugin's base folder for this run (a fresh temporary folder per test). */
  base: string;
  /** The Gemini executable (default: the workspace's real CLI). Null leaves GEMINI_BIN unset. */
  geminiBin?: string | null;
  /** The API key Gemini sends (default: a dummy). Null leaves Gemini without credentials. */
  apiKey?: string | null;
  /** PATH for the scripts (default: this process's PATH). */
  path?: string;
  /** More variables, added last. */
  extra?: NodeJS.ProcessEnv;
}

/**
 * The environment to run the plugin's scripts with, offline and hermetic: the base folder, the
 * real Gemini CLI pointed at `geminiUrl` with a dummy key, Gemini's hermetic home under the base
 * folder, and HOME/TMPDIR inside it too. Nothing of the caller's environment leaks in but PATH
 * (and LANG), so a developer's own Gemini login or key is never used.
 */
export function offloaderEnv(options: OffloaderEnvOptions): NodeJS.ProcessEnv {
  const geminiBin = options.geminiBin === undefined ? geminiCliPath() : options.geminiBin;
  const apiKey = options.apiKey === undefined ? "fake-gemini-key" : options.apiKey;
  return {
    PATH: options.path ?? process.env.PATH ?? "",
    LANG: process.env.LANG ?? "C.UTF-8",
    HOME: join(options.base, "user-home"),
    TMPDIR: join(options.base, "tmp"),
    FORCE_COLOR: "0",
    GEMINI_OFFLOADER_BASE: options.base,
    GEMINI_OFFLOADER_HERMETIC: "1",
    GOOGLE_GEMINI_BASE_URL: options.geminiUrl,
    ...(geminiBin ? { GEMINI_BIN: geminiBin } : {}),
    ...(apiKey ? { GEMINI_API_KEY: apiKey } : {}),
    ...options.extra,
  };
}
