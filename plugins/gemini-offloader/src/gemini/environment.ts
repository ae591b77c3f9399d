import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { homedir, platform } from "node:os";
import { join } from "node:path";
import { writeJsonFileAtomic } from "../store/json-file.js";

/**
 * How Gemini is run. Hermetic mode (GEMINI_OFFLOADER_HERMETIC=1) gives Gemini a home of its own
 * under the base folder, so a run reads no user settings, sends no usage statistics, tries the API
 * once and trusts the workspace; test suites and CI use it. Otherwise Gemini runs with the user's
 * own login and settings, with quiet defaults (one attempt, no session clean-up) that the user's
 * settings may override.
 */
export interface GeminiEnvironment {
  hermetic: boolean;
  /** The folder that holds `.gemini` (Gemini's GEMINI_CLI_HOME). */
  home: string;
  /** `<home>/.gemini`: Gemini's settings, login and sessions. */
  dotGemini: string;
  /** The environment Gemini is started with. */
  env: NodeJS.ProcessEnv;
  /** Our quiet defaults file, when Gemini is pointed at one (not in hermetic mode). */
  systemDefaultsFile: string | null;
}

/**
 * Settings every plugin run wants. `sessionRetention` off avoids a Gemini 0.61 bug that deleted
 * resumed sessions (and with them the plugin's named sessions); `maxAttempts: 1` makes a rate limit
 * or an unreachable API fail at once, with a diagnosis, instead of retrying past the timeout.
 */
const QUIET_SETTINGS = {
  general: { sessionRetention: { enabled: false }, maxAttempts: 1 },
};

export function isHermetic(env: NodeJS.ProcessEnv): boolean {
  return /^(1|true|yes)$/i.test(env.GEMINI_OFFLOADER_HERMETIC?.trim() ?? "");
}

export function geminiEnvironment(base: string, env: NodeJS.ProcessEnv): GeminiEnvironment {
  const common = {
    GEMINI_CLI_NO_RELAUNCH: env.GEMINI_CLI_NO_RELAUNCH ?? "true",
    FORCE_COLOR: "0",
  };
  if (isHermetic(env)) {
    const home = join(base, "gemini-home");
    return {
      hermetic: true,
      home,
      dotGemini: join(home, ".gemini"),
      env: {
        ...env,
        ...common,
        GEMINI_CLI_HOME: home,
        HOME: home,
        TMPDIR: join(base, "tmp"),
        GEMINI_CLI_TRUST_WORKSPACE: "true",
      },
      systemDefaultsFile: null,
    };
  }
  const home = env.GEMINI_CLI_HOME?.trim() || homedir();
  const defaults = systemDefaultsOverride(base, env);
  return {
    hermetic: false,
    home,
    dotGemini: join(home, ".gemini"),
    env: { ...env, ...common, ...(defaults ? { GEMINI_CLI_SYSTEM_DEFAULTS_PATH: defaults } : {}) },
    systemDefaultsFile: defaults ?? null,
  };
}

/** Writes the settings files the environment points Gemini at (before Gemini is started). */
export function prepareGeminiEnvironment(gemini: GeminiEnvironment): void {
  if (gemini.hermetic) {
    mkdirSync(gemini.env.TMPDIR as string, { recursive: true });
    writeHermeticSettings(join(gemini.dotGemini, "settings.json"), gemini.env);
    return;
  }
  if (gemini.systemDefaultsFile && !existsSync(gemini.systemDefaultsFile)) {
    writeJsonFileAtomic(gemini.systemDefaultsFile, QUIET_SETTINGS);
  }
}

/**
 * Our quiet defaults go in as Gemini's "system defaults" (the lowest layer, under the user's own
 * settings), unless the caller or an administrator already provides that file.
 */
function systemDefaultsOverride(base: string, env: NodeJS.ProcessEnv): string | undefined {
  if (env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH) return undefined;
  const adminDefaults =
    platform() === "darwin"
      ? "/Library/Application Support/GeminiCli/system-defaults.json"
      : platform() === "win32"
        ? "C:\\ProgramData\\gemini-cli\\system-defaults.json"
        : "/etc/gemini-cli/system-defaults.json";
  if (existsSync(adminDefaults)) return undefined;
  return join(base, "gemini-system-defaults.json");
}

/**
 * settings.json of the hermetic home: whatever is there already, plus no usage statistics, one
 * attempt, no session clean-up, and API-key auth when a key is in the environment.
 */
function writeHermeticSettings(file: string, env: NodeJS.ProcessEnv): void {
  let settings: Record<string, unknown> = {};
  if (existsSync(file)) {
    try {
      settings = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    } catch {
      settings = {};
    }
  }
  const before = JSON.stringify(settings);
  const section = (name: string) => {
    const value = settings[name];
    const object = value && typeof value === "object" ? (value as Record<string, unknown>) : {};
    settings[name] = object;
    return object;
  };
  section("privacy").usageStatisticsEnabled = false;
  const general = section("general");
  general.sessionRetention = { enabled: false };
  general.maxAttempts = 1;
  if (env.GEMINI_API_KEY || env.GOOGLE_API_KEY) {
    const security = section("security");
    const auth = (security.auth && typeof security.auth === "object" ? security.auth : {}) as Record<
      string,
      unknown
    >;
    auth.selectedType ??= "gemini-api-key";
    security.auth = auth;
  }
  if (JSON.stringify(settings) !== before || !existsSync(file)) writeJsonFileAtomic(file, settings);
}
