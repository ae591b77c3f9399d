/**
 * `@evals/store/reporter`: @evals/logging's vitest reporter that also records each run in the results
 * database, as a default export a config can name:
 * `reporters: ["default", ["@evals/store/reporter", { html: true }]]`.
 */
import { dirname } from "node:path";
import { EvalReporter, type EvalReporterOptions, type WrittenReports } from "@evals/logging";
import { recordRun } from "./record-run.js";

export interface RecordingReporterOptions extends EvalReporterOptions {
  /** The results database (a postgres:// URL, a folder, or `off`); default EVALS_DB_URL, else .evals/db. */
  db?: string;
}

export class RecordingReporter extends EvalReporter {
  constructor(private readonly recording: RecordingReporterOptions = {}) {
    super(recording);
  }

  protected override async reportsWritten({ results, files }: WrittenReports): Promise<void> {
    await recordRun(results, {
      source: "vitest",
      files: {
        dir: dirname(files.latest),
        history: files.history,
        ...(files.html ? { html: files.html } : {}),
      },
      cwd: dirname(files.latest),
      ...(this.recording.db ? { db: this.recording.db } : {}),
      ...(this.recording.env ? { env: this.recording.env } : {}),
    });
  }
}

export default RecordingReporter;
