import { relative } from "node:path";
import type { ResultsFile } from "@evals/logging";
import { describeLocation, type LocateOptions, locateStore, type StoreLocation } from "./location.js";
import type { RunFiles, RunSource } from "./run-rows.js";
import { type OpenStoreOptions, Store } from "./store.js";

export interface RecordRunOptions extends LocateOptions, OpenStoreOptions {
  source: RunSource;
  /** Where the run's reports were written (writeReports' files). */
  files?: RunFiles;
  /** For `evals merge`: how many shards the run was joined from. */
  mergedShards?: number;
  /** Where the one warning goes when the run could not be recorded (default: stderr). */
  warn?: (message: string) => void;
}

export type RecordRunOutcome =
  | { recorded: true; runId: string; location: StoreLocation }
  | { recorded: false; location: StoreLocation; reason?: string };

/**
 * Records a run in the results database (see locateStore), after its reports are written. It never
 * throws and never fails the eval: a database that cannot be opened (in use past the wait, corrupt,
 * of a newer schema, a server down) gets one warning naming the database, why, and the command that
 * adds the run later from its history file.
 */
export async function recordRun(results: ResultsFile, options: RecordRunOptions): Promise<RecordRunOutcome> {
  const location = locateStore(options);
  if (location.kind === "off") return { recorded: false, location };
  let store: Store | undefined;
  try {
    store = await Store.open(location, options);
    const { runId } = await store.record(results, options.source, options.files, options.mergedShards);
    return { recorded: true, runId, location };
  } catch (error) {
    const reason = (error as Error).message;
    (options.warn ?? ((message) => process.stderr.write(message)))(
      notRecordedWarning(location, reason, options),
    );
    return { recorded: false, location, reason };
  } finally {
    await store?.close().catch(() => {});
  }
}

/** The one warning of a run not recorded: the database, why, and the command that adds it later. */
export function notRecordedWarning(
  location: StoreLocation,
  reason: string,
  options: Pick<RecordRunOptions, "files">,
): string {
  const file = options.files?.history;
  const near = file ? relative(process.cwd(), file) : undefined;
  const shown = near && !near.startsWith("..") ? near : file;
  const db = location.kind === "server" ? "" : ` --db ${describeLocation(location)}`;
  const later = shown
    ? `add it later with: evals history import ${shown}${location.kind === "server" ? "" : db}`
    : "its results files are written as usual";
  return `evals: warning: this run was not recorded in the results database ${describeLocation(location)}: ${reason}. The verdict and reports are not affected; ${later}\n`;
}
