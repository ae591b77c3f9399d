import { execFileSync } from "node:child_process";
import { join, resolve } from "node:path";

/** The environment variable naming a shared PostgreSQL server (postgres://…), or `off`. */
export const DB_URL_ENV = "EVALS_DB_URL";

/** Where the results database is: a PostgreSQL server, an embedded database's folder, or nowhere. */
export type StoreLocation =
  | { kind: "server"; url: string }
  | { kind: "embedded"; dir: string }
  | { kind: "off" };

export interface LocateOptions {
  /** `--db`: a postgres:// URL, a folder for the embedded database, or `off`. */
  db?: string;
  /** Where the workspace is looked for (default: the current directory). */
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * The database a run is recorded in: `--db`, else EVALS_DB_URL, else the embedded one in
 * `<workspace>/.evals/db`, the workspace being the git checkout's top folder (else `cwd`).
 */
export function locateStore(options: LocateOptions = {}): StoreLocation {
  const cwd = resolve(options.cwd ?? process.cwd());
  const given = options.db ?? (options.env ?? process.env)[DB_URL_ENV];
  if (given !== undefined && given !== "") {
    if (given === "off") return { kind: "off" };
    if (/^postgres(ql)?:\/\//.test(given)) return { kind: "server", url: given };
    return { kind: "embedded", dir: resolve(cwd, given) };
  }
  return { kind: "embedded", dir: join(workspaceRoot(cwd), ".evals", "db") };
}

/** How a location reads in a message: the folder, or the server without its password. */
export function describeLocation(location: StoreLocation): string {
  if (location.kind === "embedded") return location.dir;
  if (location.kind === "off") return "off";
  try {
    const url = new URL(location.url);
    if (url.password) url.password = "***";
    // A password may also be in the query (?password=…, ?sslpassword=…), as libpq and pg take it.
    for (const name of ["password", "sslpassword"])
      if (url.searchParams.has(name)) url.searchParams.set(name, "***");
    return url.toString();
  } catch {
    return "the server in EVALS_DB_URL";
  }
}

function workspaceRoot(cwd: string): string {
  try {
    const top = execFileSync("git", ["rev-parse", "--show-toplevel"], {
      cwd,
      encoding: "utf8",
      timeout: 3000,
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    return top || cwd;
  } catch {
    return cwd;
  }
}
