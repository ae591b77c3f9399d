import type { ScriptOutcome } from "./cli/run-script.js";
import { EXIT } from "./gemini/diagnose.js";
import { type GeminiEnvironment, geminiEnvironment } from "./gemini/environment.js";
import { type GeminiLocation, INSTALL_HINT, locateGemini } from "./gemini/locate.js";
import {
  type BaseLayout,
  baseFolder,
  baseLayout,
  findProjectRoot,
  type ProjectLayout,
  projectLayout,
} from "./store/locations.js";

/** Where a script works: its base folder, its project, and how Gemini is found and run. */
export interface ScriptContext {
  env: NodeJS.ProcessEnv;
  cwd: string;
  layout: BaseLayout;
  project: ProjectLayout;
  gemini: GeminiEnvironment;
  geminiBin: GeminiLocation;
}

export function createContext(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): ScriptContext {
  const layout = baseLayout(baseFolder(env));
  return {
    env,
    cwd,
    layout,
    project: projectLayout(layout, findProjectRoot(cwd)),
    gemini: geminiEnvironment(layout.base, env),
    geminiBin: locateGemini(env),
  };
}

/** The answer of every Gemini-calling script when Gemini is not installed: at once, exit 1. */
export function geminiMissing(
  location: Extract<GeminiLocation, { found: false }>,
  fields: Record<string, unknown> = {},
): ScriptOutcome {
  return {
    exitCode: EXIT.failure,
    output: { success: false, ...fields, error: location.reason, install_hint: INSTALL_HINT },
  };
}
