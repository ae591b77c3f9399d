import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { CaseResult } from "@evals/logging";

/**
 * The code a case ran, as a short hash: its case file's content (the file is read where the run
 * wrote it: relative to the project, tried from each of `roots`), with the case's id. Two runs of a
 * case share it only when its file was byte for byte the same, so a verdict that changed with the
 * case file is a change, not flakiness. Undefined when the file is unknown or unreadable. `read`
 * keeps the files read so far (a suite's cases share one file: it is read once per run).
 */
export function caseCodeHash(
  c: Pick<CaseResult, "id" | "file">,
  roots: string[],
  read = new Map<string, Buffer | undefined>(),
): string | undefined {
  if (!c.file) return undefined;
  const candidates = isAbsolute(c.file) ? [c.file] : roots.map((root) => resolve(root, c.file!));
  for (const file of candidates) {
    if (!read.has(file)) read.set(file, readOrUndefined(file));
    const content = read.get(file);
    if (content === undefined) continue;
    return createHash("sha256").update(c.id).update("\0").update(content).digest("hex").slice(0, 16);
  }
  return undefined;
}

function readOrUndefined(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}
