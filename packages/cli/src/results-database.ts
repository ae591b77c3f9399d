import { describeLocation, Store, type StoreLocation } from "@evals/store";
import { SetupError } from "./errors.js";

type OpenableLocation = Exclude<StoreLocation, { kind: "off" }>;

/**
 * The results database cannot be opened: a SetupError naming it, why, and how to go on (another
 * database, or a new one in its place). `evals history`, `compare --baseline` and `view` say it alike.
 */
export function unopenableDatabase(location: OpenableLocation, error: unknown): SetupError {
  const where = describeLocation(location);
  const code = (error as NodeJS.ErrnoException).code;
  const fix =
    location.kind === "server"
      ? "check the URL and that the server is up, or name another with --db <folder | postgres:// URL>"
      : code === "EACCES" || code === "EPERM" || code === "EROFS"
        ? // Not a broken database: moving it away would only lose its history.
          `even reading it writes beside and in it (${location.dir}.lock, PostgreSQL's own files): run as the user who owns it, or copy it to a folder you may write and name the copy with --db <folder>`
        : `name another with --db <folder | postgres:// URL>, or move ${location.dir} away and the next evals run starts a new one there`;
  return new SetupError(
    `the results database ${where} cannot be opened: ${(error as Error).message}; ${fix}`,
  );
}

/** The results database at `location`, opened (the caller closes it); unopenableDatabase when it cannot be. */
export async function openResultsDatabase(location: OpenableLocation): Promise<Store> {
  try {
    return await Store.open(location);
  } catch (error) {
    throw unopenableDatabase(location, error);
  }
}
