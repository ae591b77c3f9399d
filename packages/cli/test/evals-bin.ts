import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The built `evals` binary (package.json "bin"). */
export const evalsBin = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
/** The built package, to call `evals` in a process of a test's own making. */
export const builtIndex = new URL("../dist/index.js", import.meta.url).href;

/** `evals <args>` in a process of its own: the real stdout, stderr and exit code (killed after `timeout` ms). */
export function runEvals(
  args: string[],
  timeout = 60_000,
): { code: number | null; stdout: string; stderr: string } {
  const child = spawnSync(process.execPath, [evalsBin, ...args], {
    encoding: "utf8",
    timeout,
    env: { ...process.env, FORCE_COLOR: "0" },
  });
  return { code: child.status, stdout: child.stdout, stderr: child.stderr };
}
