import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, dirname, join } from "node:path";
import { findInstalledBin, isExecutable } from "@evals/core/process";

/** The OpenCode version this package was built and tested against. */
export const SUPPORTED_OPENCODE_VERSION = "1.18.33";

/** Thrown when no `opencode` executable can be found; the message lists where it looked. */
export class OpenCodeNotFoundError extends Error {
  override readonly name = "OpenCodeNotFoundError";
  constructor(readonly searched: string[]) {
    super(
      `OpenCode CLI not found. Looked in:\n${searched.map((place) => `  - ${place}`).join("\n")}\n` +
        `Install it next to your tests with \`npm install -D opencode-ai@${SUPPORTED_OPENCODE_VERSION}\` (allow ` +
        "its install script: it links the platform binary), or point EVALS_OPENCODE_BIN (or the `opencodeBin` " +
        "option) at an `opencode` executable.",
    );
  }
}

/**
 * Finds `opencode`: the `opencodeBin` option, then EVALS_OPENCODE_BIN, then node_modules/.bin/opencode
 * in `from` (default process.cwd()), then in `alsoFrom`, and each of their parents, then PATH.
 */
export function findOpenCode(
  options: {
    opencodeBin?: string;
    from?: string;
    alsoFrom?: readonly string[];
    env?: NodeJS.ProcessEnv;
  } = {},
): string {
  const found = findInstalledBin("opencode", {
    option: { name: "opencodeBin", value: options.opencodeBin },
    envVar: "EVALS_OPENCODE_BIN",
    ...(options.from ? { from: options.from } : {}),
    ...(options.alsoFrom ? { alsoFrom: options.alsoFrom } : {}),
    ...(options.env ? { env: options.env } : {}),
  });
  if (found.bin) return found.bin;
  throw new OpenCodeNotFoundError(found.searched);
}

/**
 * The folder holding an `rg` executable for OpenCode's glob and grep tools: @vscode/ripgrep's (its
 * per-platform package ships the binary in its tarball; nothing is downloaded), else the first `rg`
 * on PATH. Undefined when there is none: glob and grep then fail with "ripgrep execution failed"
 * (OpenCode would try to download ripgrep, which offline cannot work).
 */
export function findRipgrepDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  try {
    const require = createRequire(import.meta.url);
    const { rgPath } = require("@vscode/ripgrep") as { rgPath: string };
    if (rgPath && existsSync(rgPath) && isExecutable(rgPath)) return dirname(rgPath);
  } catch {
    // Not installed (it is an optional platform package): try PATH.
  }
  for (const entry of (env.PATH ?? "").split(delimiter).filter(Boolean)) {
    if (isExecutable(join(entry, "rg"))) return entry;
  }
  return undefined;
}
