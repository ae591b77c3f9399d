import { randomBytes } from "node:crypto";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname } from "node:path";
import type { z } from "zod";
import { FORMAT_VERSION } from "../formats.js";

/** A file of the plugin's own that cannot be read: which file and what is wrong with it. */
export class StoreFileError extends Error {
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super(`${file}: ${detail}`);
    this.name = "StoreFileError";
  }
}

/** Reads and validates one JSON file; `undefined` when it does not exist. */
export function readJsonFile<T>(file: string, schema: z.ZodType<T>): T | undefined {
  if (!existsSync(file)) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new StoreFileError(file, `not valid JSON (${(error as Error).message})`);
  }
  const version = (data as { version?: unknown } | null)?.version;
  if (typeof version === "number" && version > FORMAT_VERSION) {
    throw new StoreFileError(
      file,
      `format version ${version} is newer than this plugin understands (${FORMAT_VERSION}); update the plugin`,
    );
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join(".") : "(root)";
    throw new StoreFileError(file, `field ${where}: ${issue?.message ?? "invalid"}`);
  }
  return parsed.data;
}

/** Writes a JSON file whole or not at all (temporary file, then rename). */
export function writeJsonFileAtomic(file: string, data: unknown): void {
  writeTextFileAtomic(file, `${JSON.stringify(data, null, 2)}\n`);
}

export function writeTextFileAtomic(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, file);
}

const LOCK_WAIT_MS = 10_000;
const LOCK_STALE_MS = 30_000;

/**
 * Runs `update` while holding `<file>.lock`, so that two scripts changing the same file at once
 * (the agent may run several in parallel) do not lose each other's change. A lock left behind by a
 * killed script is taken over once it is older than 30 s.
 */
export async function withFileLock<T>(file: string, update: () => T | Promise<T>): Promise<T> {
  const lock = `${file}.lock`;
  mkdirSync(dirname(lock), { recursive: true });
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      closeSync(openSync(lock, "wx"));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      if (isStale(lock)) {
        rmSync(lock, { force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new StoreFileError(lock, "still locked after 10 s; if no other script is running, delete it");
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
  try {
    return await update();
  } finally {
    rmSync(lock, { force: true });
  }
}

function isStale(lock: string): boolean {
  try {
    return Date.now() - statSync(lock).mtimeMs > LOCK_STALE_MS;
  } catch {
    return false;
  }
}
