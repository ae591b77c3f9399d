import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/**
 * Makes sure a command can write its files in `dir` before it does any work: creates the folder
 * (one level at a time: node's recursive mkdir spins forever on some paths, such as under /proc)
 * and writes a probe file there. Returns what is wrong, in one line, or undefined.
 */
export function outputDirProblem(dir: string): string | undefined {
  const absolute = resolve(dir);
  const missing: string[] = [];
  for (let at = absolute; ; at = dirname(at)) {
    const stat = statOrUndefined(at);
    if (stat) {
      if (!stat.isDirectory())
        return `${at} is not a folder${at === absolute ? "" : ` (in the way of ${absolute})`}`;
      break;
    }
    missing.unshift(at);
    if (dirname(at) === at) break;
  }
  try {
    for (const folder of missing) mkdirSync(folder);
    rmSync(mkdtempSync(join(absolute, ".evals-write-check-")), { recursive: true, force: true });
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    return `cannot write in ${absolute} (${code ?? message.split("\n")[0]})`;
  }
  return undefined;
}

function statOrUndefined(path: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}
