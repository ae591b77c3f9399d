import { accessSync, constants } from "node:fs";
import { delimiter, dirname, join, resolve } from "node:path";

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

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
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
  const explicit = geminiBin ?? env.EVALS_GEMINI_BIN;
  if (explicit) {
    const bin = resolve(explicit);
    if (isExecutable(bin)) return bin;
    throw new GeminiNotFoundError([`${geminiBin ? "geminiBin option" : "EVALS_GEMINI_BIN"}: ${bin}`]);
  }
  const searched: string[] = [];
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", ".bin", "gemini");
    searched.push(candidate);
    if (isExecutable(candidate)) return candidate;
    if (dirname(dir) === dir) break;
  }
  for (const entry of (env.PATH ?? "").split(delimiter).filter(Boolean)) {
    const candidate = join(entry, "gemini");
    if (isExecutable(candidate)) return candidate;
  }
  searched.push("PATH");
  throw new GeminiNotFoundError(searched);
}
