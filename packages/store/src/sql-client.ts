import { setFlagsFromString } from "node:v8";
import { PGlite } from "@electric-sql/pglite";

/**
 * What the store needs of a database: queries with parameters, a transaction, close. Both backends
 * are PostgreSQL (PGlite is PostgreSQL compiled to WebAssembly), so the same SQL runs on both.
 */
export interface SqlClient {
  query<Row = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<Row[]>;
  /** Several statements, no parameters (a migration). */
  exec(sql: string): Promise<void>;
  /** Runs `work` in one transaction: all of it is written, or none of it. */
  transaction<T>(work: (tx: SqlClient) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** The embedded database: PGlite keeping its files in `dir` (created on first open). */
export async function openPglite(dir: string): Promise<SqlClient> {
  compileWasmForShortUse();
  // PostgreSQL clears its shared buffers when it starts: 16 MB (not 128) holds what a run's recording
  // and `evals history` over 100 runs x 1,000 cases read (~9 MB of pages), and opens ~100 ms of CPU
  // sooner (32 MB: ~20 ms more).
  const db = await PGlite.create(dir, {
    startParams: [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"],
  });
  const over = (q: Pick<PGlite, "query" | "exec">): Omit<SqlClient, "transaction" | "close"> => ({
    query: async <Row>(sql: string, params?: unknown[]) => (await q.query<Row>(sql, params)).rows,
    exec: async (sql) => {
      await q.exec(sql);
    },
  });
  return {
    ...over(db),
    transaction: (work) => db.transaction((tx) => work({ ...over(tx), transaction: nested, close: noClose })),
    close: () => db.close(),
  };
}

/**
 * A PostgreSQL server at `url` (postgres://user:password@host:port/database), one connection. Its
 * client is imported here, not with the package: the embedded database's users never load it.
 */
export async function openServer(url: string): Promise<SqlClient> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({
    connectionString: withSslModeSpelledOut(url),
    connectionTimeoutMillis: 10_000,
  });
  // An error on an idle connection (the server went away) must not crash the eval run.
  client.on("error", () => {});
  await client.connect();
  const query = async <Row>(sql: string, params?: unknown[]) =>
    (await client.query(sql, params as unknown[])).rows as Row[];
  const exec = async (sql: string) => {
    await client.query(sql);
  };
  return {
    query,
    exec,
    transaction: async (work) => {
      await client.query("BEGIN");
      try {
        const result = await work({ query, exec, transaction: nested, close: noClose });
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      }
    },
    close: () => client.end(),
  };
}

/**
 * pg 8 takes sslmode=prefer, require and verify-ca as verify-full (its documented meaning: SSL, the
 * certificate and host name checked), and says so in a warning on every process, since pg 9 will give
 * them libpq's weaker meanings. Spelling the mode verify-full, as the warning advises to keep that
 * meaning, silences it; with uselibpqcompat=true (libpq's meanings, no warning) the URL is left as is.
 */
function withSslModeSpelledOut(url: string): string {
  const at = url.indexOf("?");
  if (at === -1) return url;
  const query = new URLSearchParams(url.slice(at + 1));
  const mode = query.get("sslmode");
  if (query.get("uselibpqcompat") === "true" || !["prefer", "require", "verify-ca"].includes(mode ?? ""))
    return url;
  query.set("sslmode", "verify-full");
  return `${url.slice(0, at)}?${query}`;
}

/**
 * PGlite is PostgreSQL as 9 MB of WebAssembly, and a process uses it for a second or two: V8's
 * optimizing tier spends more CPU compiling its hot functions than they then save. With V8's
 * baseline compiler only (Liftoff), measured CPU time: opening 720 -> 440 ms, recording a 1,000-case
 * run 780 -> 440 ms, `evals history`'s query over 100 runs x 1,000 cases 530 -> 175 ms. It applies
 * to the WebAssembly modules this process compiles from then on.
 */
function compileWasmForShortUse(): void {
  setFlagsFromString("--liftoff-only");
}

function nested(): never {
  throw new Error("nested transactions are not supported");
}

async function noClose(): Promise<void> {}
