import { cpSync, existsSync, mkdtempSync, readdirSync, statSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

/** The time every file of a copied fixture gets (then one second more per file, in path order). */
export const FIXTURE_TIME = Date.UTC(2025, 0, 1);

/**
 * Copies a case's fixture (the project the agent works in) into `target`, or into a fresh folder
 * of its own under `parent` (default: the system's temp folder), and returns that folder (an empty
 * one when there is no fixture). Every file and folder gets a fixed modification time, one second
 * apart in path order, so tools that sort by time (Grep, Glob, `ls -t`) answer the same in every
 * trial and on every machine: a replayed recording sees the same tool output it was recorded with.
 */
export function copyFixture(
  fixture: string | undefined,
  options: { parent?: string; target?: string } = {},
): string {
  if (fixture !== undefined && (!existsSync(fixture) || !statSync(fixture).isDirectory())) {
    throw new Error(`the case's fixture ${fixture} is not a folder`);
  }
  const target = options.target ?? mkdtempSync(join(options.parent ?? tmpdir(), "evals-fixture-"));
  if (fixture !== undefined) cpSync(fixture, target, { recursive: true });
  const paths = listTree(target);
  // Children before their folder: setting a file's time does not touch its folder's, but creating
  // it did, so folders are stamped last.
  paths.forEach((path, index) => {
    const time = new Date(FIXTURE_TIME + index * 1000);
    utimesSync(path, time, time);
  });
  const time = new Date(FIXTURE_TIME);
  utimesSync(target, time, time);
  return target;
}

/** Every file and folder under `root` (not root itself, nor .git), as absolute paths in path order. */
function listTree(root: string): string[] {
  const found: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.name === ".git" && folder === root) continue;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      found.push(path);
    }
  };
  walk(root);
  return found.sort((a, b) => relative(root, a).localeCompare(relative(root, b)));
}
