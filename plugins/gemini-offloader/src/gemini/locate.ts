import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";

/** What every script says when the Gemini CLI cannot be found. */
export const INSTALL_HINT =
  "Install the Gemini CLI with `npm install -g @google/gemini-cli` (Node 20 or newer), then run `gemini` once to sign in, or set GEMINI_API_KEY. If it is installed somewhere not on PATH, set GEMINI_BIN to the executable.";

export type GeminiLocation = { found: true; path: string } | { found: false; reason: string };

/** The Gemini executable: GEMINI_BIN when set (it must be executable), else `gemini` on PATH. */
export function locateGemini(env: NodeJS.ProcessEnv): GeminiLocation {
  const configured = env.GEMINI_BIN?.trim();
  if (configured) {
    const path = isAbsolute(configured) ? configured : resolve(configured);
    return isExecutableFile(path)
      ? { found: true, path }
      : { found: false, reason: `GEMINI_BIN=${configured} is not an executable file.` };
  }
  for (const folder of (env.PATH ?? "").split(delimiter)) {
    if (!folder) continue;
    const candidate = join(folder, "gemini");
    if (isExecutableFile(candidate)) return { found: true, path: candidate };
  }
  return { found: false, reason: "The Gemini CLI (`gemini`) is not on PATH and GEMINI_BIN is not set." };
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
