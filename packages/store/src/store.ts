import { rmSync } from "node:fs";
import type { ResultsFile } from "@evals/logging";
import { acquireLock } from "./file-lock.js";
import { type DigestRun, historyDigestFile, removeHistoryDigest, setDigestAside } from "./history-digest.js";
import type { StoreLocation } from "./location.js";
import { migrate } from "./migrate.js";
import { type RunFiles, type RunRows, type RunSource, runRows } from "./run-rows.js";
import { openPglite, openServer, type SqlClient } from "./sql-client.js";

export interface OpenStoreOptions {
  /**
   * How long to wait for another process of this machine to finish with the embedded database
   * (default 60 s). A server needs no waiting: its writers run side by side.
   */
  lockTimeoutMs?: number;
}

export interface RecordedRun {
  runId: string;
  /** False when the run was already in the database (recorded, then imported from its file). */
  added: boolean;
}

/** The table names, children first: the order rows are deleted, and (reversed) inserted. */
const TABLES = ["steps", "scores", "violations", "trials", "cases"] as const;

/**
 * An open results database at its current schema. The embedded one is this process's alone until
 * `close()` (a lock file beside it, `<dir>.lock`, makes the machine's other processes wait).
 */
export class Store {
  private constructor(
    readonly sql: SqlClient,
    private readonly release: () => void,
    /** The embedded database's history digest (see history-digest.ts); none for a server. */
    readonly digestFile?: string,
  ) {}

  static async open(location: Exclude<StoreLocation, { kind: "off" }>, options: OpenStoreOptions = {}) {
    if (location.kind === "server") {
      const sql = await openServer(location.url);
      return Store.migrated(sql, () => {});
    }
    const release = await acquireLock(`${location.dir}.lock`, options.lockTimeoutMs ?? 60_000);
    let sql: SqlClient;
    try {
      sql = await openPglite(location.dir);
    } catch (error) {
      release();
      throw new Error(`the database in ${location.dir} could not be opened (${(error as Error).message})`);
    }
    return Store.migrated(sql, release, historyDigestFile(location.dir));
  }

  private static async migrated(sql: SqlClient, release: () => void, digestFile?: string): Promise<Store> {
    try {
      // A migration may change what the history says (a backfill): the digest is written again.
      // And one a writer killed between its commit and its append left set aside is stale.
      if (digestFile) rmSync(`${digestFile}.writing`, { force: true });
      if ((await migrate(sql)) && digestFile) removeHistoryDigest(digestFile);
    } catch (error) {
      await sql.close().catch(() => {});
      release();
      throw error;
    }
    return new Store(sql, release, digestFile);
  }

  /**
   * Records one run from its results (the object written to latest.json, best with every trial's run,
   * so tokens, turns and tool calls are known), in one transaction: the run is in the database whole
   * or not at all. A run already recorded is left as it is.
   */
  async record(
    results: ResultsFile,
    source: RunSource,
    files: RunFiles = {},
    mergedShards?: number,
  ): Promise<RecordedRun> {
    const rows = runRows(results, source, files, mergedShards);
    const runId = rows.run.id as string;
    // The history digest is set aside while the database changes (see history-digest.ts).
    const putBack = this.digestFile ? setDigestAside(this.digestFile) : undefined;
    let replaced = false;
    let added: boolean;
    try {
      added = await this.transactRecord(rows, runId, () => {
        replaced = true;
      });
    } catch (error) {
      putBack?.({ stale: true });
      throw error;
    }
    putBack?.(added && !replaced ? { append: digestRun(rows) } : { stale: replaced });
    return { runId, added };
  }

  private transactRecord(rows: RunRows, runId: string, onReplace: () => void): Promise<boolean> {
    return this.sql.transaction(async (tx) => {
      const [found] = await tx.query<{ complete: boolean }>("SELECT complete FROM runs WHERE id = $1", [
        runId,
      ]);
      if (found?.complete) return false;
      if (found) {
        onReplace();
        for (const table of [...TABLES, "runs"]) {
          await tx.query(`DELETE FROM ${table} WHERE ${table === "runs" ? "id" : "run_id"} = $1`, [runId]);
        }
      }
      // The run's number (see schema.ts, version 4), taken first so that its cases carry it.
      const [{ seq } = { seq: 0 }] = await tx.query<{ seq: number }>(
        "SELECT nextval(pg_get_serial_sequence('runs', 'seq'))::integer AS seq",
      );
      await tx.query("INSERT INTO runs SELECT * FROM jsonb_populate_record(null::runs, $1::jsonb)", [
        JSON.stringify({ ...rows.run, recorded_at: new Date().toISOString(), seq }),
      ]);
      // What every row of the run has, given once: the columns its rows leave out.
      const runColumns = JSON.stringify({ run_id: runId, run_seq: seq });
      for (const table of [...TABLES].reverse()) {
        if (rows[table].length === 0) continue;
        // One statement per table: PostgreSQL spreads the JSON array over the table's columns, the
        // run's columns filled in from the base record. json, not jsonb: read once, it is parsed
        // as it is read (jsonb converts the whole text first; ~10% of a 1,000-case run's write).
        await tx.query(
          `INSERT INTO ${table} SELECT * FROM json_populate_recordset(json_populate_record(null::${table}, $2::json), $1::json)`,
          [JSON.stringify(rows[table]), runColumns],
        );
      }
      await tx.query(
        "INSERT INTO case_keys SELECT DISTINCT suite, case_id FROM cases WHERE run_id = $1 ON CONFLICT DO NOTHING",
        [runId],
      );
      await tx.query("UPDATE runs SET complete = true WHERE id = $1", [runId]);
      return true;
    });
  }

  async close(): Promise<void> {
    try {
      await this.sql.close();
    } finally {
      this.release();
    }
  }
}

/** A new run's line of the history digest: nothing of a shard (caseHistory counts whole runs only). */
function digestRun(rows: RunRows): DigestRun | undefined {
  if (rows.run.shard_index !== null) return undefined;
  const cases = rows.cases.filter((c) => c.status !== "skipped");
  return {
    id: rows.run.id as string,
    finished_at: new Date(rows.run.finished_at as string).toISOString(),
    git_commit: (rows.run.git_commit as string | null) ?? null,
    cases: cases.map((c) => [
      c.suite as string,
      c.case_id as string,
      c.status as string,
      c.passed_trials as number,
      c.trial_count as number,
    ]),
  };
}
