/**
 * `@evals/store/reporter`: @evals/logging's vitest reporter that also records each run in the results
 * database, as a default export a config can name:
 * `reporters: ["default", ["@evals/store/reporter", { html: true }]]`.
 */
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { EvalReporter, type EvalReporterOptions, type WrittenReports } from "@evals/logging";
import { locateStore } from "./location.js";
import { queueRun, RECORD_QUEUE_ENV } from "./record-queue.js";
import { type RecordRunOptions, recordRun } from "./record-run.js";

export interface RecordingReporterOptions extends EvalReporterOptions {
  /** The results database (a postgres:// URL, a folder, or `off`); default EVALS_DB_URL, else .evals/db. */
  db?: string;
}

export class RecordingReporter extends EvalReporter {
  constructor(private readonly recording: RecordingReporterOptions = {}) {
    super(recording);
  }

  protected override async reportsWritten({ results, files }: WrittenReports): Promise<void> {
    const options: RecordRunOptions = {
      source: "vitest",
      files: {
        dir: dirname(files.latest),
        history: files.history,
        ...(files.html ? { html: files.html } : {}),
      },
      cwd: dirname(files.latest),
      ...(this.recording.db ? { db: this.recording.db } : {}),
      ...(this.recording.env ? { env: this.recording.env } : {}),
    };
    // Under `npm run eval` the run is left for recordQueuedRuns, which records every suite's at once;
    // but the first suite to finish creates a new embedded database (~3 s of CPU) while the others
    // still run, so that it is not created at the end with nothing beside it.
    const queue = (this.recording.env ?? process.env)[RECORD_QUEUE_ENV];
    const location = locateStore(options);
    if (queue && (location.kind !== "embedded" || existsSync(location.dir)))
      queueRun(queue, results, options);
    else await recordRun(results, options);
  }
}

export default RecordingReporter;
