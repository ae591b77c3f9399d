import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, relative, resolve } from "node:path";
import { type Redactor, redactFileSync, writeFileAtomic } from "@evals/core";
import { z } from "zod";
import { WorktreeError } from "./errors.js";
import { type GitOptions, git, gitOutputSync } from "./git.js";

export const OUTCOME_VERSION = 1 as const;
export const OUTCOME_FILE = "outcome.json";
export const OUTCOME_PATCH_FILE = "outcome.patch";

export const ChangedFileSchema = z.object({
  path: z.string(),
  status: z.enum(["added", "modified", "deleted", "renamed", "copied", "type-changed"]),
  /** The path before a rename or copy. */
  old_path: z.string().optional(),
  /** Lines added and deleted; null for binary files. */
  additions: z.number().int().nonnegative().nullable(),
  deletions: z.number().int().nonnegative().nullable(),
  binary: z.boolean(),
});
export type ChangedFile = z.infer<typeof ChangedFileSchema>;

/**
 * `outcome.json` in a run's folder: what the trial changed in its worktree, against the commit it
 * started from (tracked files edited, added, deleted or renamed, and new untracked files that are not
 * ignored). `outcome.patch` beside it holds the full diff (`git apply`-able, binary files included).
 */
export const OutcomeSchema = z.object({
  version: z.literal(OUTCOME_VERSION),
  test_id: z.string().optional(),
  /** The worktree the changes were read from. */
  worktree: z.string(),
  /** The commit the trial started from, and HEAD when the outcome was captured (the agent may commit). */
  base: z.string(),
  head: z.string(),
  captured_at: z.string(),
  /** File name of the patch, relative to outcome.json. */
  patch_file: z.string(),
  patch_bytes: z.number().int().nonnegative(),
  files: z.array(ChangedFileSchema),
  totals: z.object({
    files: z.number().int().nonnegative(),
    additions: z.number().int().nonnegative(),
    deletions: z.number().int().nonnegative(),
  }),
});
export type Outcome = z.infer<typeof OutcomeSchema>;

export interface CaptureOutcomeOptions {
  /** Replaces secrets in outcome.patch and outcome.json before they are written (see @evals/core). */
  redactor?: Pick<Redactor, "text">;
  /** The commit to diff against (default: the worktree's HEAD). */
  base?: string;
  /** The run folder that receives outcome.json and outcome.patch. */
  outputDir: string;
  testId?: string;
}

/**
 * Saves what changed in `worktreePath` since `base` into `outputDir` (outcome.patch + outcome.json)
 * and returns it. Reads the worktree through a temporary index, so the worktree, its index and HEAD
 * are left exactly as the agent left them. The run folder itself is excluded when it lies inside the
 * worktree.
 */
export async function captureOutcome(worktreePath: string, options: CaptureOutcomeOptions): Promise<Outcome> {
  const steps = captureSteps(worktreePath, options);
  let next = steps.next();
  try {
    while (!next.done) {
      const { args, cwd, ...gitOptions } = next.value;
      next = steps.next(await git(cwd, args, gitOptions));
    }
    return next.value;
  } finally {
    steps.return(undefined as never);
  }
}

/**
 * captureOutcome, synchronously: for a signal handler, where nothing asynchronous runs any more
 * (Ctrl-C during a trial still saves its outcome before the worktree goes).
 */
export function captureOutcomeSync(worktreePath: string, options: CaptureOutcomeOptions): Outcome {
  const steps = captureSteps(worktreePath, options);
  let next = steps.next();
  try {
    while (!next.done) {
      const { args, cwd, ...gitOptions } = next.value;
      next = steps.next(gitOutputSync(cwd, args, gitOptions));
    }
    return next.value;
  } finally {
    steps.return(undefined as never);
  }
}

/** One git command that a capture step needs run. */
interface GitStep extends GitOptions {
  cwd: string;
  args: string[];
}

/** The steps of a capture: yields the git commands to run, gets back their stdout. */
function* captureSteps(
  worktreePath: string,
  options: CaptureOutcomeOptions,
): Generator<GitStep, Outcome, { stdout: string }> {
  const worktree = resolve(worktreePath);
  const outputDir = resolve(options.outputDir);
  const head = (yield {
    cwd: worktree,
    args: ["rev-parse", "--verify", "--quiet", "HEAD"],
    allowFailure: true,
  }).stdout.trim();
  const base = options.base ?? head;
  if (!base) {
    throw new WorktreeError("UNKNOWN_REF", `${worktree} has no commit to compare its changes with.`, {
      worktree,
    });
  }
  mkdirSync(outputDir, { recursive: true });
  const scratch = mkdtempSync(join(tmpdir(), "evals-outcome-"));
  try {
    const index = join(scratch, "index");
    const gitPath = (yield { cwd: worktree, args: ["rev-parse", "--git-path", "index"] }).stdout.trim();
    const worktreeIndex = resolve(worktree, gitPath);
    if (existsSync(worktreeIndex)) {
      copyFileSync(worktreeIndex, index);
      // Keep the index's mtime: git trusts cached stat data only for files older than the index, so
      // a copy that looks newer would hide an edit made in the same second as the checkout.
      const { atime, mtime } = statSync(worktreeIndex);
      utimesSync(index, atime, mtime);
    }
    const env = { GIT_INDEX_FILE: index };
    yield { cwd: worktree, args: ["add", "--all", "--", ".", ...excludeInside(worktree, outputDir)], env };

    const diff = [
      "-c",
      "core.quotePath=false",
      "diff",
      "--cached",
      "--no-color",
      "--no-ext-diff",
      "--find-renames",
    ];
    const patchFile = join(outputDir, OUTCOME_PATCH_FILE);
    const partial = `${patchFile}.partial`;
    const fd = openSync(partial, "w");
    try {
      yield {
        cwd: worktree,
        args: [
          ...diff,
          "--binary",
          "--full-index",
          "--no-textconv",
          "--src-prefix=a/",
          "--dst-prefix=b/",
          base,
        ],
        env,
        stdoutFd: fd,
      };
    } finally {
      closeSync(fd);
    }
    if (options.redactor) redactFileSync(partial, options.redactor);
    renameSync(partial, patchFile);

    const nameStatus = (yield { cwd: worktree, args: [...diff, "--name-status", "-z", base], env }).stdout;
    const numstat = (yield { cwd: worktree, args: [...diff, "--numstat", "-z", base], env }).stdout;
    const files = joinFileLists(parseNameStatus(nameStatus), parseNumstat(numstat));
    const outcome: Outcome = {
      version: OUTCOME_VERSION,
      ...(options.testId !== undefined ? { test_id: options.testId } : {}),
      worktree,
      base,
      head: head || base,
      captured_at: new Date().toISOString(),
      patch_file: OUTCOME_PATCH_FILE,
      patch_bytes: statSync(patchFile).size,
      files,
      totals: {
        files: files.length,
        additions: files.reduce((sum, file) => sum + (file.additions ?? 0), 0),
        deletions: files.reduce((sum, file) => sum + (file.deletions ?? 0), 0),
      },
    };
    const outcomeFile = join(outputDir, OUTCOME_FILE);
    const json = `${JSON.stringify(outcome, null, 2)}\n`;
    const written = options.redactor ? options.redactor.text(json) : json;
    writeFileAtomic(outcomeFile, written);
    return written === json ? outcome : (JSON.parse(written) as Outcome);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Reads and validates `<runDir>/outcome.json`; the error names the file and the field. */
export function readOutcome(runDir: string): Outcome {
  const file = join(resolve(runDir), OUTCOME_FILE);
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new WorktreeError("INVALID_FILE", `Cannot read ${file}: ${(error as Error).message}`, { file });
  }
  const parsed = OutcomeSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new WorktreeError(
      "INVALID_FILE",
      `${file} (field ${issue.path.join(".") || "(root)"}): ${issue.message}`,
      { file, issues: parsed.error.issues },
    );
  }
  return parsed.data;
}

/** The full patch of a run's outcome. */
export function readOutcomePatch(runDir: string): string {
  const outcome = readOutcome(runDir);
  return readFileSync(join(resolve(runDir), outcome.patch_file), "utf8");
}

/** A pathspec excluding `inner` when it lies inside `outer`. */
function excludeInside(outer: string, inner: string): string[] {
  const rel = relative(outer, inner);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return [];
  return [`:(exclude)${rel.split("\\").join("/")}`];
}

const STATUS: Record<string, ChangedFile["status"]> = {
  A: "added",
  M: "modified",
  D: "deleted",
  R: "renamed",
  C: "copied",
  T: "type-changed",
};

type NameStatus = Pick<ChangedFile, "path" | "status" | "old_path">;

/** `git diff --name-status -z`: `M\0path\0`, `R100\0old\0new\0`. */
function parseNameStatus(out: string): NameStatus[] {
  const fields = out.split("\0");
  const files: NameStatus[] = [];
  for (let i = 0; i + 1 < fields.length; ) {
    const code = fields[i++]!;
    if (!code) continue;
    const status = STATUS[code[0]!] ?? "modified";
    if (status === "renamed" || status === "copied") {
      const oldPath = fields[i++]!;
      files.push({ path: fields[i++]!, status, old_path: oldPath });
    } else {
      files.push({ path: fields[i++]!, status });
    }
  }
  return files;
}

/** `git diff --numstat -z`: `add\tdel\tpath\0`, or `add\tdel\t\0old\0new\0` for a rename. */
function parseNumstat(out: string): Map<string, { additions: number | null; deletions: number | null }> {
  const fields = out.split("\0");
  const stats = new Map<string, { additions: number | null; deletions: number | null }>();
  for (let i = 0; i < fields.length; ) {
    const field = fields[i++]!;
    if (!field) continue;
    const [added = "-", deleted = "-", path = ""] = field.split("\t");
    let target = path;
    if (path === "") {
      i++; // the old path
      target = fields[i++] ?? "";
    }
    stats.set(target, {
      additions: added === "-" ? null : Number(added),
      deletions: deleted === "-" ? null : Number(deleted),
    });
  }
  return stats;
}

function joinFileLists(
  names: NameStatus[],
  stats: Map<string, { additions: number | null; deletions: number | null }>,
): ChangedFile[] {
  return names.map((file) => {
    const stat = stats.get(file.path) ?? { additions: null, deletions: null };
    return { ...file, ...stat, binary: stat.additions === null };
  });
}
