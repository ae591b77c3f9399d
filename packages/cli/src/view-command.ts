import { existsSync } from "node:fs";
import { describeLocation, locateStore, StoreOnDemand } from "@evals/store";
import { PortUnavailableError, startViewer } from "@evals/viewer";
import { noMoreArguments, parseCommandArgs, wholeNumberOption } from "./args.js";
import type { Command, CommandIo } from "./command.js";
import { BadInputError, SetupError, UsageError } from "./errors.js";
import { EXIT, EXIT_CODES_HELP } from "./exit-codes.js";
import { unopenableDatabase } from "./results-database.js";

export const VIEW_USAGE = `Usage: evals view [--db <url|dir>] [--port <n>]

Serves a local web app over the results database on 127.0.0.1 and prints its URL: the runs over
time (pass rate, cost, branch, commit), a run's cases with their verdicts and violations, a case's
pass rate over its runs with the 95% Wilson band and every trial's transcript, the flaky cases, and
any two runs side by side. The pages need no JavaScript. Ctrl-C stops it.

The embedded database is held only while a page is answered: an evals run records meanwhile, and
the next page shows it. A PostgreSQL server (--db postgres://…) has no wait at all.

Options:
  --db <url|dir>   the results database: a postgres:// URL or a folder for the embedded one
                   (default: EVALS_DB_URL, else .evals/db in the workspace)
  --port <n>       the port on 127.0.0.1 (default 0: any free port)
  -h, --help       this help

${EXIT_CODES_HELP}
Here: 0 stopped by Ctrl-C, 2 bad usage, a database that cannot be opened or a port that is taken.`;

/** `evals view`: the results database as a local web app, until SIGINT or SIGTERM. */
export const view: Command = {
  name: "view",
  summary: "a local web app over the results database: runs, cases, trials, flaky cases, comparisons",
  usage: VIEW_USAGE,
  run: async (args, io) => {
    const parsed = parseCommandArgs("view", args, {
      db: { type: "string" },
      port: { type: "string" },
    });
    const { values, positionals } = parsed;
    noMoreArguments("view", positionals, 0);
    // Digits only: Number() also reads "0x50" (port 80) and "" (0: any port).
    const port = values.port === undefined ? 0 : wholeNumberOption("--port", values.port, 0, 65535);
    const location = locateStore(values.db !== undefined ? { db: values.db } : {});
    if (location.kind === "off") throw new UsageError("--db off: no database to view");
    if (location.kind === "embedded" && !existsSync(location.dir)) {
      throw new BadInputError(
        `no results database in ${location.dir}: evals run records every run there, or name one with --db <url|dir>`,
      );
    }
    // Opened for the requests only: `evals run` records into the embedded database between them.
    const store = new StoreOnDemand(location);
    try {
      await store.use(async () => {});
    } catch (error) {
      throw unopenableDatabase(location, error);
    }
    try {
      return await serveUntilStopped(store, port, describeLocation(location), io);
    } finally {
      await store.close();
    }
  },
};

async function serveUntilStopped(
  store: StoreOnDemand,
  port: number,
  where: string,
  io: CommandIo,
): Promise<number> {
  let viewer: Awaited<ReturnType<typeof startViewer>>;
  try {
    viewer = await startViewer({ store, port });
  } catch (error) {
    if (!(error instanceof PortUnavailableError)) throw error;
    throw new SetupError(`${error.message}: pick another with --port <n>, or --port 0 for any free one`);
  }
  io.stdout.write(`evals view: serving ${where} at ${viewer.url} (Ctrl-C stops)\n`);
  let stop: (signal: NodeJS.Signals) => void = () => {};
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    stop = resolve;
    process.on("SIGINT", stop).on("SIGTERM", stop);
  });
  process.off("SIGINT", stop).off("SIGTERM", stop);
  await viewer.close();
  io.stdout.write(`evals view: stopped (${signal})\n`);
  return EXIT.passed;
}
