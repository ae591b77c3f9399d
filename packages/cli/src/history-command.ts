import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import type { Store } from "@evals/store";
import {
  type CaseHistory,
  describeLocation,
  formatHistory,
  historyDigestFile,
  historyFromDigest,
  locateStore,
  readHistoryDigest,
  type StoreLocation,
} from "@evals/store/history-reader";
import { parseCommandArgs, wholeNumberOption } from "./args.js";
import type { Command, CommandIo } from "./command.js";
import { UnreadableFileError, UsageError } from "./errors.js";
import { EXIT, EXIT_CODES_HELP } from "./exit-codes.js";

export const HISTORY_USAGE = `Usage: evals history [case ids...] [options]
       evals history --flaky [case ids...] [options]
       evals history import <results files...> [--db <url|dir>]

Every run of evals run, evals record, evals merge and the eval suites (npm run eval) is recorded in
the results database. Shows, per case, its pass rate over its last runs with the 95% Wilson band,
and one mark per run, oldest first (▁ no trial passed … █ all passed, × errored). One shard of a run
is not counted: the run evals merge joined is.

With --flaky, lists the flaky cases instead: a case is flaky when some trial passed and another
failed among its runs of the same case file (its content's hash), the same agent CLI and version,
the same model (the recorded one when replayed) and the same origin (live or replayed). A case whose
verdict changed with its case file is not flaky; errored trials (API errors, timeouts) count neither
way. Each flaky case shows its runs (id, time, commit), which trials passed and which failed, and
the first step where a failing trial's tool calls leave a passing trial's. Exit 0 either way.

\`evals history import\` adds past results files (latest.json, results/history/…) to the database;
a run already recorded is not added twice.

Options:
  --last <n>            each case over its last n runs (default 20)
  --since <ref|date>    only runs finished at or after a date (2026-11-01) or a git commit's time
                        (a commit, branch or tag of this checkout)
  --db <url|dir>        the results database: a postgres:// URL or a folder for the embedded one
                        (default: EVALS_DB_URL, else .evals/db in the workspace)
  --flaky               list the flaky cases, with their evidence (see above)
  --json                the history (or the flaky cases) as JSON
  -h, --help            this help

${EXIT_CODES_HELP}
Here: 0 shown (or imported), 2 bad usage, a file that is not a results file or a database that
cannot be opened.`;

/** `evals history`: pass rates over recorded runs; `evals history import`: adds results files. */
export const history: Command = {
  name: "history",
  summary:
    "each case's pass rate over its recorded runs (95% band, one mark per run); import adds results files",
  usage: HISTORY_USAGE,
  run: async (args, io) => {
    const parsed = parseCommandArgs("history", args, {
      last: { type: "string" },
      since: { type: "string" },
      db: { type: "string" },
      json: { type: "boolean" },
      flaky: { type: "boolean" },
    });
    const { values, positionals } = parsed;
    const location = locateStore(values.db !== undefined ? { db: values.db } : {});
    if (location.kind === "off") throw new UsageError("--db off: no database to read");
    if (positionals[0] === "import") return importFiles(positionals.slice(1), location, io);

    const last = values.last === undefined ? 20 : wholeNumberOption("--last", values.last, 1);
    let since: Date | undefined;
    if (values.since !== undefined) {
      since = sinceTime(values.since);
      if (!since)
        throw new UsageError(
          `--since ${values.since}: neither a date (2026-11-01) nor a git commit, branch or tag of this checkout`,
        );
    }
    if (location.kind === "embedded" && !existsSync(location.dir)) {
      io.stdout.write(
        values.json
          ? `${JSON.stringify({ db: location.dir, cases: [] }, null, 2)}\n`
          : `No runs recorded yet in ${location.dir}: evals run records every run there.\n`,
      );
      return EXIT.passed;
    }
    const query = {
      last,
      ...(positionals.length > 0 ? { cases: positionals } : {}),
      ...(since ? { since } : {}),
    };
    const show = (cases: CaseHistory[]) =>
      io.stdout.write(
        values.json
          ? `${JSON.stringify({ db: describeLocation(location), last, ...(since ? { since: since.toISOString() } : {}), cases }, null, 2)}\n`
          : formatHistory(cases),
      );
    // The embedded database's history digest answers without starting PostgreSQL (see @evals/store).
    const digest =
      location.kind === "embedded" && !values.flaky
        ? readHistoryDigest(historyDigestFile(location.dir))
        : undefined;
    if (digest) {
      show(historyFromDigest(digest, query));
      return EXIT.passed;
    }
    const store = await openDatabase(location);
    try {
      if (values.flaky) {
        const { showFlaky } = await import("./history-flaky.js");
        return await showFlaky(store, { last, positionals, since, json: values.json }, io);
      }
      const { caseHistory, refreshHistoryDigest } = await import("@evals/store");
      show(await caseHistory(store, query));
      await refreshHistoryDigest(store);
      return EXIT.passed;
    } finally {
      await store.close();
    }
  },
};

async function importFiles(
  files: string[],
  location: Exclude<StoreLocation, { kind: "off" }>,
  io: CommandIo,
): Promise<number> {
  if (files.length === 0) throw new UsageError("import: name the results files to add");
  const store = await openDatabase(location);
  const { importResults } = await import("@evals/store");
  const { ResultsFileError } = await import("@evals/logging");
  try {
    const imported = await importResults(store, files);
    const added = imported.filter((file) => file.added).length;
    io.stdout.write(
      `${added} run(s) added to ${describeLocation(location)}${added < imported.length ? `, ${imported.length - added} already there` : ""}\n`,
    );
    return EXIT.passed;
  } catch (error) {
    if (!(error instanceof ResultsFileError)) throw error;
    throw new UnreadableFileError(
      error.file,
      `${error.message} (nothing was added; evals run writes a results file: results/latest.json)`,
    );
  } finally {
    await store.close();
  }
}

/** The database opened, or the SetupError saying why not; loaded only when the digest cannot answer. */
async function openDatabase(location: Exclude<StoreLocation, { kind: "off" }>): Promise<Store> {
  const { openResultsDatabase } = await import("./results-database.js");
  return openResultsDatabase(location);
}

/** A date (YYYY-MM-DD…), or the commit time of a git ref of the checkout here. */
function sinceTime(value: string): Date | undefined {
  if (/^\d{4}-\d{2}-\d{2}/.test(value)) {
    const date = new Date(value);
    return Number.isNaN(date.getTime()) ? undefined : date;
  }
  try {
    const time = execFileSync("git", ["log", "-1", "--format=%cI", value, "--"], {
      encoding: "utf8",
      timeout: 5000,
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    return time ? new Date(time) : undefined;
  } catch {
    return undefined;
  }
}
