import { accessSync, constants, existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { delimiter, dirname, join, resolve } from "node:path";

export interface FindInstalledBinOptions {
  /** Where the node_modules/.bin walk starts (default process.cwd()). */
  from?: string;
  /** More folders to walk up from after `from` (a runner package's own folder). */
  alsoFrom?: readonly string[];
  /** The environment to read `envVar` and PATH from (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** A runner option that names the executable (e.g. `{ name: "codexBin", value }`): tried first. */
  option?: { name: string; value: string | undefined };
  /** An environment variable that names the executable (e.g. EVALS_CODEX_BIN): tried next. */
  envVar?: string;
}

export interface InstalledBin {
  /** The executable, when one was found. */
  bin?: string;
  /** Where it looked, for the not-found error. */
  searched: string[];
  /**
   * Set when the option or the variable named the executable: then nothing else was tried, and
   * `bin` is undefined when what it names is not executable.
   */
  explicit?: "option" | "env";
}

/**
 * An agent CLI installed the way npm installs one: the path the runner's option or variable names
 * (then nothing else is tried), else `node_modules/.bin/<name>` in `from`, `alsoFrom` and each of
 * their parents, then `<name>` on PATH. Gives the first executable found, and where it looked (for
 * the not-found error). Every runner package finds its CLI with it.
 */
export function findInstalledBin(name: string, options: FindInstalledBinOptions = {}): InstalledBin {
  const env = options.env ?? process.env;
  const searched: string[] = [];
  if (options.option) {
    const { name: optionName, value } = options.option;
    if (value) return explicitBin(`${optionName} option`, value, "option");
    searched.push(`${optionName} option: not set`);
  }
  if (options.envVar) {
    const value = env[options.envVar];
    if (value) return explicitBin(options.envVar, value, "env");
    searched.push(`${options.envVar}: not set`);
  }
  for (const start of [options.from ?? process.cwd(), ...(options.alsoFrom ?? [])]) {
    for (let dir = resolve(start); ; dir = dirname(dir)) {
      const candidate = join(dir, "node_modules", ".bin", name);
      if (!searched.includes(candidate)) {
        searched.push(candidate);
        if (isExecutable(candidate)) return { bin: candidate, searched };
      }
      if (dirname(dir) === dir) break;
    }
  }
  const pathDirs = (env.PATH ?? "").split(delimiter).filter(Boolean);
  for (const pathDir of pathDirs) {
    const candidate = join(pathDir, name);
    if (isExecutable(candidate)) return { bin: candidate, searched };
  }
  searched.push(`PATH (${pathDirs.length} directories)`);
  return { searched };
}

function explicitBin(label: string, value: string, explicit: "option" | "env"): InstalledBin {
  const bin = resolve(value);
  return { ...(isExecutable(bin) ? { bin } : {}), searched: [`${label}: ${bin}`], explicit };
}

/** Whether `file` is a file this process may execute. */
export function isExecutable(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The version of the npm package `packageName` an executable belongs to (node_modules/.bin/<name>
 * links into the package), from the package.json above its real path; undefined for an executable
 * of no such package (a binary named by a runner option, a wrapper script).
 */
export function installedPackageVersion(bin: string, packageName: string): string | undefined {
  let dir: string;
  try {
    dir = dirname(realpathSync(bin));
  } catch {
    return undefined;
  }
  for (; ; dir = dirname(dir)) {
    const file = join(dir, "package.json");
    if (existsSync(file)) {
      try {
        const manifest = JSON.parse(readFileSync(file, "utf8")) as { name?: unknown; version?: unknown };
        if (manifest.name === packageName)
          return typeof manifest.version === "string" ? manifest.version : undefined;
      } catch {
        // Not a package.json this can read: keep looking above it.
      }
    }
    if (dirname(dir) === dir) return undefined;
  }
}
