import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { locateStore, recordRun, Store } from "@evals/store";
import { afterAll, describe, expect, it } from "vitest";
import { sampleResults } from "./sample-results.js";

const root = mkdtempSync(join(tmpdir(), "evals-unopenable-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const results = sampleResults(["passed"], "2026-11-10T00:00:00Z");
const files = {
  dir: join(root, "results"),
  history: join(root, "results", "history", "2026-11", "10-000000-sample.json"),
};

/** recordRun into `db`: what it returned and every warning it gave. */
async function record(db: string, lockTimeoutMs = 60_000) {
  const warnings: string[] = [];
  const outcome = await recordRun(results, {
    source: "run",
    files,
    db,
    lockTimeoutMs,
    warn: (m) => warnings.push(m),
  });
  return { outcome, warnings };
}

describe("a database that cannot be opened never fails the eval: one warning says what was not recorded", () => {
  it("of a newer schema version", async () => {
    const db = join(root, "newer");
    const store = await Store.open({ kind: "embedded", dir: db });
    await store.sql.query("INSERT INTO evals_schema (version) VALUES (99)");
    await store.close();
    const { outcome, warnings } = await record(db);
    expect(outcome.recorded).toBe(false);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(
      `not recorded in the results database ${db}: its schema is version 99, newer than`,
    );
    expect(warnings[0]).toContain(`evals history import ${files.history}`);
  });

  it("corrupt", async () => {
    const db = join(root, "corrupt");
    mkdirSync(db, { recursive: true });
    writeFileSync(join(db, "PG_VERSION"), "not a database\n");
    writeFileSync(join(db, "postgresql.conf"), "\u0000\u0001garbage");
    const { outcome, warnings } = await record(db);
    expect(outcome.recorded).toBe(false);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`the database in ${db} could not be opened`);
  });

  it("in use by another process past the wait", async () => {
    const db = join(root, "locked");
    // A live process (this one) holds the machine's lock.
    writeFileSync(`${db}.lock`, String(process.pid));
    const { outcome, warnings } = await record(db, 300);
    rmSync(`${db}.lock`);
    expect(outcome.recorded).toBe(false);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`it is in use by another process (pid ${process.pid})`);
  });

  it("a server that is down", async () => {
    const { outcome, warnings } = await record("postgres://evals:secret@127.0.0.1:1/evals");
    expect(outcome.recorded).toBe(false);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(
      "not recorded in the results database postgres://evals:***@127.0.0.1:1/evals",
    );
    expect(warnings[0]).not.toContain("secret");
  });

  it("a server whose password is in the URL's query (?password=, as libpq and pg take it)", async () => {
    const { outcome, warnings } = await record(
      "postgres://evals@127.0.0.1:1/evals?sslpassword=keysecret&password=secret&application_name=ci",
    );
    expect(outcome.recorded).toBe(false);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("not recorded in the results database postgres://evals@127.0.0.1:1/evals?");
    expect(warnings[0]).toContain("application_name=ci");
    expect(warnings[0]).not.toContain("secret");
  });

  it("turned off (EVALS_DB_URL=off): nothing recorded, no warning", async () => {
    const warnings: string[] = [];
    const outcome = await recordRun(results, {
      source: "run",
      env: { EVALS_DB_URL: "off" },
      warn: (m) => warnings.push(m),
    });
    expect(outcome).toEqual({ recorded: false, location: { kind: "off" } });
    expect(warnings).toEqual([]);
    expect(locateStore({ db: "postgresql://h/db" })).toEqual({ kind: "server", url: "postgresql://h/db" });
  });
});
