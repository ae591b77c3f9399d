import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { findInstalledBin, installedPackageVersion } from "@evals/core/process";

/** The Gemini CLI version this package was built and tested against. */
export const SUPPORTED_GEMINI_VERSION = "0.61.0";

/** Thrown when no `gemini` executable can be found; the message lists where it looked. */
export class GeminiNotFoundError extends Error {
  override readonly name = "GeminiNotFoundError";
  constructor(readonly searched: string[]) {
    super(
      `Gemini CLI not found. Looked in:\n${searched.map((place) => `  - ${place}`).join("\n")}\n` +
        `Install it next to your tests with \`npm install -D @google/gemini-cli@${SUPPORTED_GEMINI_VERSION}\`, ` +
        "or point EVALS_GEMINI_BIN (or the `geminiBin` option) at a `gemini` executable.",
    );
  }
}

/**
 * Thrown when the `gemini` found is another version than SUPPORTED_GEMINI_VERSION: its requests, its
 * stream and so its recordings differ, so it would neither replay nor be read as this package expects.
 */
export class GeminiVersionError extends Error {
  override readonly name = "GeminiVersionError";
  constructor(
    readonly bin: string,
    readonly version: string,
  ) {
    super(
      `Gemini CLI ${version} at ${bin} is not the version @evals/gemini-cli runs (${SUPPORTED_GEMINI_VERSION}). ` +
        `Install that one next to your tests with \`npm install -D @google/gemini-cli@${SUPPORTED_GEMINI_VERSION}\`, ` +
        `or point EVALS_GEMINI_BIN (or the \`geminiBin\` option) at a gemini ${SUPPORTED_GEMINI_VERSION}.`,
    );
  }
}

/**
 * Finds `gemini`: the given path, then EVALS_GEMINI_BIN, then node_modules/.bin/gemini in `from`
 * (default process.cwd()), this package's folder and each of their parents, then PATH. Called
 * directly, never through npx (which may reach the network). A gemini of the @google/gemini-cli
 * package in another version than SUPPORTED_GEMINI_VERSION is a GeminiVersionError.
 */
export function findGemini(
  geminiBin?: string,
  from = process.cwd(),
  env: NodeJS.ProcessEnv = process.env,
): string {
  const found = findInstalledBin("gemini", {
    option: { name: "geminiBin", value: geminiBin },
    envVar: "EVALS_GEMINI_BIN",
    from,
    alsoFrom: [dirname(fileURLToPath(import.meta.url))],
    env,
  });
  if (!found.bin) throw new GeminiNotFoundError(found.searched);
  const version = installedPackageVersion(found.bin, "@google/gemini-cli");
  if (version !== undefined && version !== SUPPORTED_GEMINI_VERSION)
    throw new GeminiVersionError(found.bin, version);
  return found.bin;
}
