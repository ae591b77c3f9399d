import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { findInstalledBin, installedPackageVersion } from "@evals/core/process";

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

/**
 * Thrown when the `codex` found is another version than SUPPORTED_CODEX_VERSION: its requests, its
 * stream and so its recordings differ, so it would neither replay nor be read as this package expects.
 */
export class CodexVersionError extends Error {
  override readonly name = "CodexVersionError";
  constructor(
    readonly bin: string,
    readonly version: string,
  ) {
    super(
      `Codex CLI ${version} at ${bin} is not the version @evals/codex runs (${SUPPORTED_CODEX_VERSION}). ` +
        `Install that one next to your tests with \`npm install -D @openai/codex@${SUPPORTED_CODEX_VERSION}\`, or point ` +
        `EVALS_CODEX_BIN (or the \`codexBin\` option) at a codex ${SUPPORTED_CODEX_VERSION}.`,
    );
  }
}

/**
 * Finds `codex`: the `codexBin` option, then EVALS_CODEX_BIN, then node_modules/.bin/codex in `from`
 * (default process.cwd()), this package's folder and each of their parents, then PATH. A codex of
 * the @openai/codex package in another version than SUPPORTED_CODEX_VERSION is a CodexVersionError.
 */
export function findCodex(
  options: { codexBin?: string; from?: string; env?: NodeJS.ProcessEnv } = {},
): string {
  const found = findInstalledBin("codex", {
    option: { name: "codexBin", value: options.codexBin },
    envVar: "EVALS_CODEX_BIN",
    ...(options.from ? { from: options.from } : {}),
    alsoFrom: [dirname(fileURLToPath(import.meta.url))],
    ...(options.env ? { env: options.env } : {}),
  });
  if (!found.bin) throw new CodexNotFoundError(found.searched);
  const version = installedPackageVersion(found.bin, "@openai/codex");
  if (version !== undefined && version !== SUPPORTED_CODEX_VERSION)
    throw new CodexVersionError(found.bin, version);
  return found.bin;
}
