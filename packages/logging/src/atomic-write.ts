import { closeSync, mkdirSync, openSync } from "node:fs";
import { join } from "node:path";

// The atomic write lives in @evals/core (one helper for every package); re-exported for compatibility.
export { writeFileAtomic } from "@evals/core";

/**
 * A file name in `folder` that nobody has taken: `name.ext`, else `name-2.ext`, `name-3.ext`, ...
 * The name is reserved by creating the file empty, so two writers never pick the same one.
 */
export function reserveFileName(folder: string, name: string, extension: string): string {
  mkdirSync(folder, { recursive: true });
  for (let attempt = 1; ; attempt++) {
    const file = join(folder, `${name}${attempt === 1 ? "" : `-${attempt}`}${extension}`);
    try {
      closeSync(openSync(file, "wx"));
      return file;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || attempt > 10_000) throw error;
    }
  }
}
