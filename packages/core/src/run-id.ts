import { randomBytes } from "node:crypto";

/**
 * The run id: the name of a run's folder (`<root>/test-output/<run id>/`), its TEST_RUN_ID, and the
 * folder name of a trial's worktree. One rule and one generator for every package. Plain Node (no
 * zod): the capture hook's bundle uses it.
 */

/** The longest run id: one path segment, well under every file system's 255-byte name limit. */
export const MAX_RUN_ID_LENGTH = 128;

const SAFE_RUN_ID = /^[A-Za-z0-9._-]+$/;

/**
 * Why `id` cannot name a run folder ("is empty", "contains \"/\"", ...), or undefined when it can:
 * a run id is 1 to 128 letters, digits, `.`, `_` or `-`, is not `.` and holds no `..`, so it only
 * ever names a direct child of `<root>/test-output`.
 */
export function runIdProblem(id: unknown): string | undefined {
  if (id === undefined) return "is not set";
  if (typeof id !== "string") return `is a ${id === null ? "null" : typeof id}, not a string`;
  if (id === "") return "is empty";
  if (id.length > MAX_RUN_ID_LENGTH) return `has ${id.length} characters (at most ${MAX_RUN_ID_LENGTH})`;
  if (!SAFE_RUN_ID.test(id)) {
    const bad = [...id].find((char) => !SAFE_RUN_ID.test(char)) ?? "";
    return `contains ${JSON.stringify(bad)} (only letters, digits, ".", "_" and "-" are allowed)`;
  }
  if (id === ".") return 'is "."';
  if (id.includes("..")) return 'contains ".."';
  return undefined;
}

/** Whether `id` may name a run folder (see runIdProblem). */
export function isSafeRunId(id: unknown): id is string {
  return runIdProblem(id) === undefined;
}

/** A run id that cannot name a run folder: which id, and what is wrong with it. */
export class RunIdError extends Error {
  override readonly name = "RunIdError";
  constructor(
    readonly id: unknown,
    readonly problem: string,
    what = "run id",
  ) {
    super(
      `Invalid ${what} ${typeof id === "string" ? JSON.stringify(id.slice(0, 200)) : String(id)}: it ${problem}. ` +
        `A run id is 1 to ${MAX_RUN_ID_LENGTH} letters, digits, ".", "_" or "-", without ".."; newRunId(label) makes one.`,
    );
  }
}

/** Throws a RunIdError naming `id` and what is wrong with it unless it is a safe run id. */
export function assertRunId(id: unknown, what = "run id"): asserts id is string {
  const problem = runIdProblem(id);
  if (problem !== undefined) throw new RunIdError(id, problem, what);
}

/** The longest slug of the label kept in a generated id: `-<time>-<random>` takes the other 33 characters. */
const MAX_SLUG_LENGTH = MAX_RUN_ID_LENGTH - 33;

/**
 * A run id unique across processes and machines: `<label slug>-<UTC time>-<random>`, e.g.
 * `file-search-20260114T093012345Z-9f2c4a1be07d`. The slug keeps the label readable in folder
 * listings, the time sorts runs, and 48 random bits make collisions negligible. Always a safe run id.
 */
export function newRunId(label = "run"): string {
  const slug = slugify(label) || "run";
  const time = new Date().toISOString().replace(/[-:]/g, "").replace(".", "");
  return `${slug}-${time}-${randomBytes(6).toString("hex")}`;
}

/** Lower-case letters and digits with single `-` between words; never `.` (so never `..`). */
function slugify(label: string): string {
  return label
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, "-")
    .replace(/^[-_]+|[-_]+$/g, "")
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/[-_]+$/g, "");
}
