import { accessSync, constants, existsSync } from "node:fs";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The Codex CLI version this package was built and tested against. */
export const SUPPORTED_CODEX_VERSION = "0.169.0";

/** Thrown when no `codex` executable can be found; the message lists where it looked. */
export class CodexNotFoundError extends Error {
  override readonly name = "CodexNotFoundError";
  constructor(readonly searched: string[]) {
    super(
      `Codex CLI not found. Looked in:\n${searched.map((place) => `  - ${place}`).join("\n")}\n` +
        `Install it next to your tests with \`npm install -D @openai/codex@${SUPPORTED_CODEX_VERSION}\`, or point ` +
        "EVALS_CODEX_BIN (or the `codexBin` option) at a `codex` executable.",
    );
  }
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Finds `codex`: the `codexBin` option, then EVALS_CODEX_BIN, then node_modules/.bin/codex in `from`
 * (default process.cwd()), this package's folder and each of their parents, then PATH.
 */
export function findCodex(
  options: { codexBin?: string; from?: string; env?: NodeJS.ProcessEnv } = {},
): string {
  const env = options.env ?? process.env;
  const explicit = options.codexBin ?? env.EVALS_CODEX_BIN;
  if (explicit) {
    const bin = resolve(explicit);
    if (isExecutable(bin)) return bin;
    throw new CodexNotFoundError([`${options.codexBin ? "codexBin option" : "EVALS_CODEX_BIN"}: ${bin}`]);
  }
  const searched: string[] = [];
  for (const start of [resolve(options.from ?? process.cwd()), dirname(fileURLToPath(import.meta.url))]) {
    for (let dir = start; ; dir = dirname(dir)) {
      const bin = join(dir, "node_modules", ".bin", "codex");
      if (!searched.includes(bin)) {
        searched.push(bin);
        if (existsSync(bin) && isExecutable(bin)) return bin;
      }
      if (dirname(dir) === dir) break;
    }
  }
  for (const entry of (env.PATH ?? "").split(delimiter).filter(Boolean)) {
    const bin = join(entry, "codex");
    if (isExecutable(bin)) return bin;
  }
  searched.push("PATH");
  throw new CodexNotFoundError(searched);
}
