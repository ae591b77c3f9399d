import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { registerExitCleanup } from "./exit-cleanup.js";
import { type Redactor, redactTreeSync } from "./redact.js";

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
    removeLater: () => removeInBackground(root),
  };
  for (const dir of [sandbox.configDir, sandbox.home, sandbox.tmpDir]) mkdirSync(dir, { recursive: true });
  return sandbox;
}

/**
 * Deletes a folder in the background, off the run's critical path (a CLI leaves dozens of files in
 * its sandbox); whatever is still there when the process exits or is interrupted is deleted then.
 */
function removeInBackground(dir: string): void {
  const unregister = registerExitCleanup(() => removeNow(dir), "remove");
  rm(dir, { recursive: true, force: true, maxRetries: 3 })
    .catch(() => undefined)
    .finally(unregister);
}

/**
 * What becomes of a run's private folder once the run is over: kept, redacted, for a look at what
 * went wrong when `keep` says so ("always", or "on-failure", the default, when the run failed),
 * else deleted in the background. Returns whether it was kept.
 */
export function keepOrRemoveSandbox(
  dir: string,
  keep: "on-failure" | "always" | "never" | undefined,
  failed: boolean,
  redactor: Redactor,
): boolean {
  const kept = keep === "always" || ((keep ?? "on-failure") === "on-failure" && failed);
  if (kept) redactTreeSync(dir, redactor);
  else removeInBackground(dir);
  return kept;
}

/** Lower-case letters, digits, dashes and underscores only. */
export function safeName(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, "-")
    .replace(/^-+|-+$/g, "");
}
