import { randomBytes } from "node:crypto";
import { WorktreeError } from "./errors.js";

/**
 * The longest run id accepted. A run id is one path segment (test-output/<id>, a worktree folder), so
 * it stays well under every file system's 255-byte name limit.
 */
export const MAX_RUN_ID_LENGTH = 128;

/** Letters, digits, `.`, `_` and `-`: the characters the capture hook accepts in TEST_RUN_ID. */
const SAFE_CHARACTERS = /^[A-Za-z0-9._-]+$/;

/**
 * Whether `id` can be used as one path segment: only letters, digits, `.`, `_`, `-`; no `..`; not `.`;
 * 1 to MAX_RUN_ID_LENGTH characters. The same rule the capture hook applies to TEST_RUN_ID.
 */
export function isSafeRunId(id: unknown): id is string {
  return typeof id === "string" && unsafeReason(id) === undefined;
}

/** Throws a WorktreeError (code UNSAFE_ID) that says why `id` is not a safe run id. */
export function assertSafeRunId(id: unknown, what = "run id"): asserts id is string {
  const reason = typeof id === "string" ? unsafeReason(id) : `it is a ${typeof id}, not a string`;
  if (reason !== undefined) {
    throw new WorktreeError(
      "UNSAFE_ID",
      `Unsafe ${what} ${JSON.stringify(typeof id === "string" ? id.slice(0, 200) : id)}: ${reason}. ` +
        `A run id may hold only letters, digits, ".", "_" and "-", no "..", at most ${MAX_RUN_ID_LENGTH} characters; ` +
        "generateTestId(name) makes one.",
      { id },
    );
  }
}

function unsafeReason(id: string): string | undefined {
  if (id.length === 0) return "it is empty";
  if (id.length > MAX_RUN_ID_LENGTH) return `it has ${id.length} characters`;
  if (!SAFE_CHARACTERS.test(id)) {
    const bad = [...id].find((char) => !/[A-Za-z0-9._-]/.test(char)) ?? "";
    return `it contains ${JSON.stringify(bad)}`;
  }
  if (id === ".") return 'it is "."';
  if (id.includes("..")) return 'it contains ".."';
  return undefined;
}

/** The longest slug of the name kept in a generated id (the rest is time and randomness). */
const MAX_SLUG_LENGTH = 64;

/**
 * A run id unique across processes and machines: `<name slug>-<UTC time>-<random>`, e.g.
 * `file-search-20260114T093012345Z-9f2c4a1be07d`. The slug keeps the name readable in folder
 * listings, the time sorts runs, and 48 random bits make collisions between machines negligible.
 * Always a safe run id, whatever the name.
 */
export function generateTestId(name = "run"): string {
  const slug = slugify(name) || "run";
  const time = new Date().toISOString().replace(/[-:]/g, "").replace(".", "");
  return `${slug}-${time}-${randomBytes(6).toString("hex")}`;
}

/** Lower-case letters and digits with single `-` between words; never `.` (so never `..`). */
function slugify(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, "-")
    .replace(/^[-_]+|[-_]+$/g, "")
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/[-_]+$/g, "");
}
