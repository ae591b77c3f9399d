import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { registerExitCleanup } from "@evals/core";
import { RUN_MARKER_ENV } from "./process-tree.js";

/**
 * The fresh, private directories one run of the CLI gets instead of the user's own: its
 * CLAUDE_CONFIG_DIR (transcripts, settings, its random device id), HOME and TMPDIR. Nothing of the
 * user's real Claude setup is read, and nothing the run writes lands there.
 */
export interface Sandbox {
  root: string;
  configDir: string;
  home: string;
  tmpDir: string;
  /** Deletes the sandbox now (best effort). */
  remove(): void;
  /**
   * Deletes the sandbox in the background, so the caller need not wait for it; whatever is left
   * when the process exits is deleted then.
   */
  removeLater(): void;
}

function removeNow(root: string): void {
  rmSync(root, { recursive: true, force: true, maxRetries: 3 });
}

export function createSandbox(runId: string, parent = tmpdir()): Sandbox {
  const root = mkdtempSync(join(parent, `evals-${safeName(runId).slice(0, 60)}-`));
  const sandbox = {
    root,
    configDir: join(root, "claude-config"),
    home: join(root, "home"),
    tmpDir: join(root, "tmp"),
    remove: () => removeNow(root),
    removeLater: () => {
      // Whatever is still there when the process exits or is interrupted is deleted then.
      const unregister = registerExitCleanup(() => removeNow(root), "remove");
      rm(root, { recursive: true, force: true, maxRetries: 3 })
        .catch(() => undefined)
        .finally(unregister);
    },
  };
  for (const dir of [sandbox.configDir, sandbox.home, sandbox.tmpDir]) mkdirSync(dir, { recursive: true });
  return sandbox;
}

/** Variables a run inherits from the caller's environment; everything else is left out. */
export const INHERITED_ENV = [
  "PATH",
  "SHELL",
  "USER",
  "LOGNAME",
  "LANG",
  "LANGUAGE",
  "LC_ALL",
  "LC_CTYPE",
  "TZ",
] as const;

/**
 * Certificates and proxies: inherited only when the run talks to a model that is not on this
 * machine. A loopback run needs neither (a proxy could even catch its loopback requests), and
 * NODE_EXTRA_CA_CERTS alone costs every Node hook process about 100 ms of CPU at start.
 */
export const NETWORK_ENV = [
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
] as const;

export interface HermeticEnvInput {
  sandbox: Sandbox;
  runId: string;
  /** The root under which the hooks write test-output/<runId>/. */
  outputRoot: string;
  /** Marks every process of the run (see process-tree). */
  marker: string;
  baseUrl?: string;
  apiKey?: string;
  /** Set IS_SANDBOX=1 (needed as root for bypassPermissions / --dangerously-skip-permissions). */
  isSandbox?: boolean;
  /** The caller's environment (default process.env); only INHERITED_ENV is taken from it. */
  parentEnv?: NodeJS.ProcessEnv;
  /** Last word: these are set (or, when undefined, removed). */
  env?: Record<string, string | undefined>;
}

/** The complete environment of one run. Nothing else from the caller's environment gets through. */
export function hermeticEnv(input: HermeticEnvInput): Record<string, string> {
  const parent = input.parentEnv ?? process.env;
  const env: Record<string, string> = {};
  const remote = !input.baseUrl || !isLoopbackUrl(input.baseUrl);
  for (const name of [...INHERITED_ENV, ...(remote ? NETWORK_ENV : [])]) {
    const value = parent[name];
    if (value !== undefined) env[name] = value;
  }
  Object.assign(env, {
    HOME: input.sandbox.home,
    CLAUDE_CONFIG_DIR: input.sandbox.configDir,
    TMPDIR: input.sandbox.tmpDir,
    TMP: input.sandbox.tmpDir,
    TEMP: input.sandbox.tmpDir,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    FORCE_COLOR: "0",
    NO_COLOR: "1",
    TEST_MODE: "true",
    TEST_RUN_ID: input.runId,
    EVALS_OUTPUT_DIR: input.outputRoot,
    [RUN_MARKER_ENV]: input.marker,
  });
  if (input.baseUrl) env.ANTHROPIC_BASE_URL = input.baseUrl;
  const apiKey = input.apiKey ?? parent.ANTHROPIC_API_KEY ?? (input.baseUrl ? "sk-evals-offline" : undefined);
  if (apiKey) env.ANTHROPIC_API_KEY = apiKey;
  if (input.isSandbox) env.IS_SANDBOX = "1";
  for (const [name, value] of Object.entries(input.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

function isLoopbackUrl(url: string): boolean {
  try {
    const { hostname } = new URL(url);
    return hostname === "127.0.0.1" || hostname === "localhost" || hostname === "[::1]" || hostname === "::1";
  } catch {
    return false;
  }
}

/** A run id that is unique, readable and safe as a directory name. */
export function newRunId(label = "run"): string {
  const stamp = Date.now().toString(36);
  return `${safeName(label).slice(0, 80) || "run"}-${stamp}-${randomBytes(3).toString("hex")}`;
}

/** Lower-case letters, digits, dashes and underscores only. */
export function safeName(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^-+|-+$/g, "");
}
