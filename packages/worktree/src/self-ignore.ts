import { readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** What a self-ignoring folder's `.gitignore` holds: `*` ignores everything in the folder, itself included. */
export const SELF_IGNORE_FILE_CONTENT = "# Written by @evals/worktree: nothing here is committed.\n*\n";

/**
 * Whether `file` is a self-ignore file written by ensureSelfIgnoredFolder: its content is ours, whole
 * or a beginning of it (creating a file and writing it are two steps, and another process's
 * `git status` can look in between).
 */
export function isSelfIgnoreFile(file: string): boolean {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return false;
  }
  return SELF_IGNORE_FILE_CONTENT.startsWith(text);
}

/**
 * Creates `folder` with a `.gitignore` of `*` in it (unless it has one): git then ignores the folder and
 * everything in it, without any change to the user's own .gitignore. Safe for processes doing it at
 * once: whoever finds the file being written by another waits until it is whole (and writes it whole
 * itself if the other never finishes), so on return git ignores the folder.
 */
export async function ensureSelfIgnoredFolder(folder: string): Promise<void> {
  await mkdir(folder, { recursive: true });
  const file = join(folder, ".gitignore");
  try {
    await writeFile(file, SELF_IGNORE_FILE_CONTENT, { flag: "wx" });
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const incomplete = () => isSelfIgnoreFile(file) && readFileSync(file, "utf8") !== SELF_IGNORE_FILE_CONTENT;
  for (let tries = 0; tries < 50 && incomplete(); tries++) await sleep(10);
  if (incomplete()) await writeFile(file, SELF_IGNORE_FILE_CONTENT);
}
