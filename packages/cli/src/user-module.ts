import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

/**
 * Imports a module the user named on the command line (`--model`, `--rules`): its exports, or one
 * line that says why not, with the file and line of the problem when known ("--model models.mjs:
 * cannot be imported: models.mjs:3: SyntaxError: Unexpected token ')'").
 */
export async function importUserModule(
  path: string,
  flag: string,
  cwd = process.cwd(),
): Promise<{ exports: Record<string, unknown> } | { error: string }> {
  const file = resolve(cwd, path);
  if (!existsSync(file)) return { error: `${flag} ${path}: no such file` };
  try {
    return { exports: (await import(pathToFileURL(file).href)) as Record<string, unknown> };
  } catch (error) {
    const where = errorLocation(error, file);
    const what = error instanceof Error ? `${error.name}: ${error.message.split("\n")[0]}` : String(error);
    return { error: `${flag} ${path}: cannot be imported: ${where ? `${where}: ` : ""}${what}` };
  }
}

/**
 * Where in the user's module (`path` from `cwd`) an import, or a call into it, failed: the first
 * stack frame in it, or, for a syntax error (whose stack names only node's loader), the line `node
 * --check` reports.
 */
export function errorLocation(error: unknown, path: string, cwd = process.cwd()): string | undefined {
  const file = resolve(cwd, path);
  const url = pathToFileURL(file).href;
  const stack = error instanceof Error ? (error.stack ?? "") : "";
  const frame = stack.match(new RegExp(`${escapeRegExp(url)}:(\\d+)`));
  if (frame) return `${file}:${frame[1]}`;
  if (!(error instanceof SyntaxError)) return undefined;
  const check = spawnSync(process.execPath, ["--check", file], { encoding: "utf8", timeout: 10_000 });
  const first = check.stderr?.split("\n")[0] ?? "";
  return /^.+:\d+$/.test(first) ? first : undefined;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
