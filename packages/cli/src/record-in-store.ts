import type { WrittenReports } from "@evals/logging";
import { type RecordRunOptions, recordRun } from "@evals/store";
import type { CommandIo } from "./command.js";

/** The `--db` line of a recording command's help. */
export const DB_OPTION_HELP = `  --db <url|dir|off>  the results database the run is recorded in: a postgres:// URL, a folder for
                      the embedded one, or off (default: EVALS_DB_URL, else .evals/db in the workspace)`;

/**
 * Records a run whose reports were just written in the results database (@evals/store). Never fails
 * the command: a database that cannot be opened gets one warning on stderr.
 */
export async function recordWritten(
  { results, files }: WrittenReports,
  source: RecordRunOptions["source"],
  db: string | undefined,
  io: CommandIo,
  mergedShards?: number,
): Promise<void> {
  await recordRun(results, {
    source,
    files: {
      dir: files.latest.replace(/[/\\]latest\.json$/, ""),
      history: files.history,
      ...(files.html ? { html: files.html } : {}),
    },
    ...(db !== undefined ? { db } : {}),
    ...(mergedShards !== undefined ? { mergedShards } : {}),
    warn: (message) => io.stderr.write(message),
  });
}
