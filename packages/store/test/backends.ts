import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { locateStore, Store } from "@evals/store";
import { startPostgres } from "@evals/test-kit/postgres";

/** A place for databases: a fresh one per `db()` call. */
export interface Backend {
  name: string;
  setUp(): Promise<{ db: () => Promise<string>; tearDown(): Promise<void> }>;
}

/** The embedded database (a fresh folder each) and a real PostgreSQL server (a fresh database each). */
export const BACKENDS: Backend[] = [
  {
    name: "embedded (PGlite)",
    async setUp() {
      const root = mkdtempSync(join(tmpdir(), "evals-insights-"));
      let n = 0;
      return {
        db: async () => join(root, `db-${++n}`),
        tearDown: async () => rmSync(root, { recursive: true, force: true }),
      };
    },
  },
  {
    name: "PostgreSQL server",
    async setUp() {
      const server = await startPostgres();
      const { default: pg } = await import("pg");
      let n = 0;
      return {
        db: async () => {
          const name = `insights_${++n}`;
          const admin = new pg.Client({ connectionString: server.url });
          await admin.connect();
          await admin.query(`CREATE DATABASE ${name}`);
          await admin.end();
          return server.url.replace(/\/evals$/, `/${name}`);
        },
        tearDown: () => server.stop(),
      };
    },
  },
];

export async function openStore(db: string): Promise<Store> {
  return Store.open(locateStore({ db }) as Exclude<ReturnType<typeof locateStore>, { kind: "off" }>);
}
