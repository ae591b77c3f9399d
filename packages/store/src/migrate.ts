import { MIGRATIONS, SCHEMA_VERSION } from "./schema.js";
import type { SqlClient } from "./sql-client.js";

/** The database was written by a newer @evals/store: this one does not know its schema. */
export class SchemaTooNewError extends Error {
  constructor(readonly found: number) {
    super(
      `its schema is version ${found}, newer than this @evals/store's ${SCHEMA_VERSION} (update @evals/store, or point --db at another database)`,
    );
    this.name = "SchemaTooNewError";
  }
}

// Any constant: the key of the advisory lock that makes concurrent openers migrate one at a time.
const MIGRATION_LOCK = 280_28;

/**
 * Brings the database to SCHEMA_VERSION, in one transaction: the migrations it lacks, in order.
 * Several processes opening one server at once wait for each other on an advisory lock. True when
 * it changed the database (a migration ran).
 */
export async function migrate(db: SqlClient): Promise<boolean> {
  // Most opens find the schema current: one read, no transaction or lock.
  if ((await currentVersion(db)) === SCHEMA_VERSION) return false;
  return db.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await tx.exec(
      "CREATE TABLE IF NOT EXISTS evals_schema (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
    );
    const [row] = await tx.query<{ version: number | null }>(
      "SELECT max(version) AS version FROM evals_schema",
    );
    const current = row?.version ?? 0;
    if (current > SCHEMA_VERSION) throw new SchemaTooNewError(current);
    let migrated = false;
    for (const migration of MIGRATIONS) {
      if (migration.version <= current) continue;
      await tx.exec(migration.sql);
      await tx.query("INSERT INTO evals_schema (version) VALUES ($1)", [migration.version]);
      migrated = true;
    }
    return migrated;
  });
}

/** The database's schema version, or undefined when it has none yet (a new database). */
async function currentVersion(db: SqlClient): Promise<number | undefined> {
  const [table] = await db.query<{ name: string | null }>("SELECT to_regclass('evals_schema')::text AS name");
  if (!table?.name) return undefined;
  const [row] = await db.query<{ version: number | null }>(
    "SELECT max(version) AS version FROM evals_schema",
  );
  return row?.version ?? undefined;
}
