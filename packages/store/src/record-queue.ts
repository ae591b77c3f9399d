import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { basename, join } from "node:path";
import { type ResultsFile, writeFileAtomic } from "@evals/logging";
import { locateStore, type StoreLocation } from "./location.js";
import { notRecordedWarning, type RecordRunOptions } from "./record-run.js";
import type { RunFiles, RunSource } from "./run-rows.js";
import { Store } from "./store.js";

/**
 * A folder where the vitest reporter leaves each run instead of recording it, for
 * `recordQueuedRuns` to record them all at the end: `npm run eval` runs a dozen suites, and
 * opening the embedded database costs each of them ~0.4 s of CPU (one open records them all).
 */
export const RECORD_QUEUE_ENV = "EVALS_RECORD_QUEUE";

const QUEUED_RUN_VERSION = 1;

/** A queued run: what recordRun would have been given, with the database it was meant for. */
interface QueuedRun {
  version: typeof QUEUED_RUN_VERSION;
  location: Exclude<StoreLocation, { kind: "off" }>;
  source: RunSource;
  files?: RunFiles;
  mergedShards?: number;
  results: ResultsFile;
}

let queued = 0;

/**
 * Leaves the run in `dir` (a file of its own, written atomically) for recordQueuedRuns, with the
 * database it is recorded in resolved now (from `db`, EVALS_DB_URL or the workspace of `cwd`).
 * Nothing is queued when recording is off.
 */
export function queueRun(dir: string, results: ResultsFile, options: RecordRunOptions): void {
  const location = locateStore(options);
  if (location.kind === "off") return;
  const run: QueuedRun = {
    version: QUEUED_RUN_VERSION,
    location,
    source: options.source,
    ...(options.files ? { files: options.files } : {}),
    ...(options.mergedShards !== undefined ? { mergedShards: options.mergedShards } : {}),
    results,
  };
  const name = `${Date.now()}-${process.pid}-${String(queued++).padStart(4, "0")}.json`;
  // Owner-only: a server location's URL may hold its password.
  writeFileAtomic(join(dir, name), JSON.stringify(run), { mode: 0o600 });
}

/** What recordQueuedRuns did. */
export interface QueuedRunsOutcome {
  /** Runs added to their database. */
  recorded: number;
  /** Runs their database already held (a queue an interrupted run left, recorded meanwhile). */
  alreadyRecorded: number;
  /** Runs that could not be recorded (each got recordRun's warning, with the command that adds it later). */
  failed: number;
  /**
   * Queued files that are not runs of this @evals/store (unreadable JSON, another version): each
   * moved to `<dir>/rejected/` with a warning, so one bad file never blocks the next runs.
   */
  rejected: number;
}

/** Where recordQueuedRuns moves a queued file it cannot read. */
export const REJECTED_QUEUE_FOLDER = "rejected";

/**
 * Records every run queued in `dir` (queueRun), oldest first, opening each database once, and
 * removes their files. Like recordRun it never throws for a database that cannot be opened: each
 * run not recorded gets one warning with the command that adds it later from its history file.
 */
export async function recordQueuedRuns(
  dir: string,
  options: { warn?: (message: string) => void } = {},
): Promise<QueuedRunsOutcome> {
  const files = readdirSync(dir)
    .filter((name) => name.endsWith(".json"))
    .sort()
    .map((name) => join(dir, name));
  const warn = options.warn ?? ((message: string) => process.stderr.write(message));
  const outcome: QueuedRunsOutcome = { recorded: 0, alreadyRecorded: 0, failed: 0, rejected: 0 };
  // Grouped by the whole location (a server's URL with its password), so each run goes to its own database.
  const byDatabase = new Map<string, { location: QueuedRun["location"]; runs: [string, QueuedRun][] }>();
  for (const file of files) {
    // Another `npm run eval` of the workspace may have recorded and removed it meanwhile.
    const text = readIfThere(file);
    if (text === undefined) continue;
    const run = queuedRun(text);
    if (typeof run === "string") {
      reject(dir, file);
      outcome.rejected++;
      warn(
        `evals: warning: ${file} is not a run queued by this @evals/store (${run}), so it was not recorded; moved to ${join(dir, REJECTED_QUEUE_FOLDER)}. Its suite's results are in its history file as usual: add them with evals history import <that file>\n`,
      );
      continue;
    }
    const key = JSON.stringify(run.location);
    const group = byDatabase.get(key) ?? { location: run.location, runs: [] };
    group.runs.push([file, run]);
    byDatabase.set(key, group);
  }
  for (const { location, runs } of byDatabase.values()) {
    let store: Store | undefined;
    let openError: Error | undefined;
    try {
      store = await Store.open(location);
    } catch (error) {
      openError = error as Error;
    }
    try {
      for (const [file, run] of runs) {
        try {
          if (!store) throw openError;
          const { added } = await store.record(run.results, run.source, run.files, run.mergedShards);
          if (added) outcome.recorded++;
          else outcome.alreadyRecorded++;
        } catch (error) {
          outcome.failed++;
          warn(notRecordedWarning(location, (error as Error).message, run.files ? { files: run.files } : {}));
        }
        rmSync(file, { force: true });
      }
    } finally {
      await store?.close().catch(() => {});
    }
  }
  return outcome;
}

function readIfThere(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** The queued run in `text`, or why it is not one. */
function queuedRun(text: string): QueuedRun | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return "not JSON: written by something else, or cut off";
  }
  const run = value as Partial<QueuedRun> | null;
  if (!run || typeof run !== "object") return "not an object";
  if (run.version !== QUEUED_RUN_VERSION)
    return `version ${String(run.version)}, this one reads ${QUEUED_RUN_VERSION}`;
  if (!run.location || !run.results || !run.source) return "no location, results or source";
  return run as QueuedRun;
}

function reject(dir: string, file: string): void {
  const rejected = join(dir, REJECTED_QUEUE_FOLDER);
  mkdirSync(rejected, { recursive: true });
  try {
    renameSync(file, join(rejected, basename(file)));
  } catch {
    rmSync(file, { force: true });
  }
}
