import { accessSync, constants, statSync } from "node:fs";
import { delimiter, dirname, join, resolve } from "node:path";

/**
 * An agent CLI installed the way npm installs one: `node_modules/.bin/<name>` in `from` (default
 * process.cwd()) and each parent, then `<name>` on PATH. Gives the first executable found, and where
 * it looked (for the not-found error). Every runner package finds its CLI with it.
 */
export function findInstalledBin(
  name: string,
  options: { from?: string; env?: NodeJS.ProcessEnv } = {},
): { bin?: string; searched: string[] } {
  const searched: string[] = [];
  let dir = resolve(options.from ?? process.cwd());
  for (;;) {
    const candidate = join(dir, "node_modules", ".bin", name);
    searched.push(candidate);
    if (isExecutable(candidate)) return { bin: candidate, searched };
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  const pathDirs = ((options.env ?? process.env).PATH ?? "").split(delimiter).filter(Boolean);
  for (const pathDir of pathDirs) {
    const candidate = join(pathDir, name);
    if (isExecutable(candidate)) return { bin: candidate, searched };
  }
  searched.push(`PATH (${pathDirs.length} directories)`);
  return { searched };
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
