import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

/** The time every file of a copied fixture gets (then one second more per file, in path order). */
export const FIXTURE_TIME = Date.UTC(2025, 0, 1);

/**
 * Copies a case's fixture (the project the agent works in) into a fresh folder of its own and
 * returns that folder (an empty one when the case has no fixture). Every file and folder gets a fixed modification time, one second apart in
 * path order, so tools that sort by time (Grep, Glob, `ls -t`) answer the same in every trial and
 * on every machine: a replayed recording sees the same tool output it was recorded with.
 */
export function copyFixture(fixture: string | undefined, parent: string = tmpdir()): string {
  if (fixture !== undefined && (!existsSync(fixture) || !statSync(fixture).isDirectory())) {
    throw new Error(`the case's fixture ${fixture} is not a folder`);
  }
  const target = mkdtempSync(join(parent, "evals-example-"));
  if (fixture !== undefined) cpSync(fixture, target, { recursive: true });
  const paths = listTree(target).sort();
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

/** Every file and folder under `root` (not root itself), as absolute paths. */
function listTree(root: string): string[] {
  const found: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      found.push(path);
    }
  };
  walk(root);
  return found.sort((a, b) => relative(root, a).localeCompare(relative(root, b)));
}

const leftBehind = new Set<string>();

/**
 * Removes `folder` when this process exits, not before: scorers that look at what the agent left
 * (a command grader running the project's tests, say) run after the agent, in its folder.
 */
export function removeAtExit(folder: string): void {
  if (leftBehind.size === 0) process.once("exit", removeLeftBehind);
  leftBehind.add(folder);
}

function removeLeftBehind(): void {
  for (const folder of leftBehind) rmSync(folder, { recursive: true, force: true });
  leftBehind.clear();
}
