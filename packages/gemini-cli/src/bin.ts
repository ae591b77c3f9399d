import { findInstalledBin } from "@evals/core/process";

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
 * Finds `gemini`: the given path, then EVALS_GEMINI_BIN, then node_modules/.bin/gemini in `from`
 * (default process.cwd()) and each parent, then PATH. Called directly, never through npx (which
 * may reach the network).
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
    env,
  });
  if (found.bin) return found.bin;
  throw new GeminiNotFoundError(found.searched);
}
