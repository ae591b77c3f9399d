import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CaseStatus, wilsonInterval } from "@evals/logging";
import {
  caseHistory,
  importResults,
  locateStore,
  refreshHistoryDigest,
  SCHEMA_VERSION,
  Store,
  sparkline,
} from "@evals/store";
import { type PostgresServer, startPostgres } from "@evals/test-kit/postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleResults } from "./sample-results.js";

const CHILD = join(import.meta.dirname, "fixtures", "record-child.mjs");

/** The same tests for both backends: a fresh embedded database, and a real PostgreSQL server. */
const backends: { name: string; setUp(): Promise<{ db: () => string; tearDown(): Promise<void> }> }[] = [
  {
    name: "embedded (PGlite)",
    async setUp() {
      const root = mkdtempSync(join(tmpdir(), "evals-store-"));
      // Creating a database runs initdb inside WebAssembly (seconds): each test gets a copy of one.
      const template = join(root, "template");
      await (await Store.open({ kind: "embedded", dir: template })).close();
      let n = 0;
      return {
        db: () => {
          const dir = join(root, `db-${++n}`);
          cpSync(template, dir, { recursive: true });
          return dir;
        },
        tearDown: async () => rmSync(root, { recursive: true, force: true }),
      };
    },
  },
  {
    name: "PostgreSQL server",
    async setUp() {
      const server: PostgresServer = await startPostgres();
      let n = 0;
      // Each test its own database on the one server.
      const { default: pg } = await import("pg");
      const names: string[] = [];
      for (let i = 1; i <= 9; i++) {
        const admin = new pg.Client({ connectionString: server.url });
        await admin.connect();
        await admin.query(`CREATE DATABASE test_${i}`);
        await admin.end();
        names.push(server.url.replace(/\/evals$/, `/test_${i}`));
      }
      return { db: () => names[n++]!, tearDown: () => server.stop() };
    },
  },
];

describe.each(backends)("the store on $name", (backend) => {
  let env: Awaited<ReturnType<(typeof backend)["setUp"]>>;
  beforeAll(async () => {
    env = await backend.setUp();
  }, 300_000);
  afterAll(async () => env?.tearDown());

  async function open(db: string): Promise<Store> {
    return Store.open(locateStore({ db }) as Exclude<ReturnType<typeof locateStore>, { kind: "off" }>);
  }

  it("records a run whole: its meta, cases, trials with tokens and turns, scores, violations, steps", async () => {
    const store = await open(env.db());
    try {
      const results = sampleResults(["passed", "failed"], "2026-11-20T10:00:00.000Z", {
        variant: { name: "B", gated: true },
      });
      const first = await store.record(results, "run", {
        dir: "/w/results",
        history: "/w/results/history/x.json",
      });
      expect(first.added).toBe(true);
      expect((await store.record(results, "import")).added).toBe(false);
      const runs = await store.sql.query("SELECT * FROM runs");
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({
        source: "run",
        suite: "sample",
        git_commit: "0123456789abcdef0123456789abcdef01234567",
        git_branch: "main",
        git_dirty: false,
        agent_cli: "claude-code",
        agent_version: "2.1.330",
        variant: "B",
        case_count: 2,
        passed: 1,
        failed: 1,
        results_file: "/w/results/history/x.json",
        complete: true,
      });
      const trials = await store.sql.query("SELECT * FROM trials ORDER BY position");
      expect(trials[1]).toMatchObject({
        status: "failed",
        outcome: "completed",
        origin: "replay",
        run_folder: "/tmp/runs/c1-0",
        model: "claude-sonnet-4-5",
        turns: 2,
        tool_calls: 1,
        duration_ms: 1500,
      });
      expect(Number(trials[1]!.input_tokens)).toBe(120);
      expect(await store.sql.query("SELECT scorer, score, passed FROM scores ORDER BY position")).toEqual([
        { scorer: "rules", score: 1, passed: true },
        { scorer: "rules", score: 0, passed: false },
      ]);
      expect(await store.sql.query("SELECT position, trial, rule, severity FROM violations")).toEqual([
        { position: 1, trial: 0, rule: "read-before-edit", severity: "error" },
      ]);
      expect(await store.sql.query("SELECT position, tool, input FROM steps ORDER BY position")).toEqual([
        { position: 0, tool: "Read", input: { file_path: "a.ts" } },
        { position: 1, tool: "Edit", input: { file_path: "a.ts" } },
      ]);
      expect(await store.sql.query("SELECT max(version) AS v FROM evals_schema")).toEqual([
        { v: SCHEMA_VERSION },
      ]);
    } finally {
      await store.close();
    }
  });

  it("gives each case's pass rate over its last runs with the Wilson band; --since and shards left out", async () => {
    const store = await open(env.db());
    try {
      await store.record(sampleResults(["passed", "passed"], "2026-11-01T10:00:00Z"), "run");
      await store.record(sampleResults(["failed", "passed"], "2026-11-02T10:00:00Z"), "run");
      await store.record(sampleResults(["passed", "error"], "2026-11-03T10:00:00Z"), "run");
      // One shard of a run: its merged run counts, not the shard.
      await store.record(
        sampleResults(["failed"], "2026-11-04T10:00:00Z", { shard: { index: 1, count: 2, positions: [0] } }),
        "run",
      );
      const all = await caseHistory(store);
      expect(all.map((h) => [h.case_id, h.runs.length, h.passed])).toEqual([
        ["c0", 3, 2],
        ["c1", 3, 2],
      ]);
      const [low, high] = wilsonInterval(2, 3);
      expect(all[0]).toMatchObject({ pass_rate: 2 / 3, ci_low: low, ci_high: high });
      expect(sparkline(all[0]!.runs)).toBe("█▁█");
      expect(sparkline(all[1]!.runs)).toBe("██×");
      const recent = await caseHistory(store, { cases: ["c0"], since: new Date("2026-11-02T00:00:00Z") });
      expect(recent.map((h) => h.runs.map((r) => r.status))).toEqual([["failed", "passed"]]);
      expect((await caseHistory(store, { last: 1 })).map((h) => h.runs.length)).toEqual([1, 1]);
    } finally {
      await store.close();
    }
  });

  it("migrates a database of schema version 3 on open: its runs numbered, each case's history whole", async () => {
    const db = env.db();
    let store = await open(db);
    const ids: string[] = [];
    try {
      for (const [day, statuses] of [
        ["01", ["passed", "failed"]],
        ["02", ["failed", "passed"]],
      ] as const) {
        ids.push(
          (await store.record(sampleResults([...statuses], `2026-11-${day}T10:00:00.000Z`), "run")).runId,
        );
      }
      await refreshHistoryDigest(store);
      // Back to what version 3 wrote: no run numbers.
      await store.sql.exec(
        "ALTER TABLE cases DROP COLUMN run_seq; ALTER TABLE runs DROP COLUMN seq; DELETE FROM evals_schema WHERE version > 3",
      );
    } finally {
      await store.close();
    }
    store = await open(db);
    try {
      // The embedded database's history digest: deleted by the migration, the next reader writes it.
      if (store.digestFile) expect(existsSync(store.digestFile)).toBe(false);
      expect(await store.sql.query("SELECT max(version) AS v FROM evals_schema")).toEqual([
        { v: SCHEMA_VERSION },
      ]);
      expect(
        (
          await store.sql.query<{ n: number }>("SELECT count(*)::int AS n FROM cases WHERE run_seq IS NULL")
        )[0],
      ).toEqual({ n: 0 });
      // A run recorded after the migration is numbered after the migrated ones.
      ids.push(
        (await store.record(sampleResults(["passed", "passed"], "2026-11-03T10:00:00.000Z"), "run")).runId,
      );
      const history = await caseHistory(store);
      expect(
        history.map((h) => h.runs.map((r) => [r.run_id, r.finished_at, r.status, r.git_commit])),
      ).toEqual(
        [
          ["passed", "failed", "passed"],
          ["failed", "passed", "passed"],
        ].map((statuses) =>
          statuses.map((status, i) => [
            ids[i],
            `2026-11-0${i + 1}T10:00:00.000Z`,
            status,
            "0123456789abcdef0123456789abcdef01234567",
          ]),
        ),
      );
    } finally {
      await store.close();
    }
  });

  it("imports past results files once each", async () => {
    const dir = mkdtempSync(join(tmpdir(), "evals-import-"));
    const file = join(dir, "latest.json");
    writeFileSync(file, JSON.stringify(sampleResults(["passed"], "2026-10-01T00:00:00Z")));
    const store = await open(env.db());
    try {
      expect((await importResults(store, [file])).map((i) => i.added)).toEqual([true]);
      expect((await importResults(store, [file])).map((i) => i.added)).toEqual([false]);
      expect(await store.sql.query("SELECT source, results_file FROM runs")).toEqual([
        { source: "import", results_file: file },
      ]);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("keeps every trial of runs written by processes at once", async () => {
    const db = env.db();
    const dir = mkdtempSync(join(tmpdir(), "evals-writers-"));
    const writers = backend.name.startsWith("embedded") ? 2 : 4;
    const files = Array.from({ length: writers }, (_, i) => {
      const file = join(dir, `run-${i}.json`);
      const statuses = Array.from(
        { length: 50 },
        (_, c) => (c % 3 === 0 ? "failed" : "passed") as CaseStatus,
      );
      writeFileSync(file, JSON.stringify(sampleResults(statuses, `2026-11-0${i + 1}T00:00:00Z`)));
      return file;
    });
    try {
      const outputs = await Promise.all(files.map((file) => runChild(db, file)));
      expect(outputs.map((o) => o.stdout)).toEqual(files.map(() => "writing\ndone\n"));
      const store = await open(db);
      try {
        expect(await store.sql.query("SELECT count(*)::int AS n FROM runs WHERE complete")).toEqual([
          { n: writers },
        ]);
        expect(await store.sql.query("SELECT count(*)::int AS n FROM trials")).toEqual([{ n: writers * 50 }]);
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("leaves no half-written run when the writer is killed (SIGKILL) mid-write", async () => {
    const db = env.db();
    const dir = mkdtempSync(join(tmpdir(), "evals-kill-"));
    const file = join(dir, "big.json");
    const statuses = Array.from(
      { length: 3000 },
      (_, c) => (c % 2 === 0 ? "failed" : "passed") as CaseStatus,
    );
    writeFileSync(file, JSON.stringify(sampleResults(statuses, "2026-11-05T00:00:00Z")));
    try {
      const killed = await runChild(db, file, { killAfterWriting: 150 });
      expect(killed.signal).toBe("SIGKILL");
      expect(killed.stdout).toBe("writing\n");
      // The next writer opens the database (the dead writer's lock taken over) and finds no part of it.
      const store = await open(db);
      try {
        expect(await store.sql.query("SELECT count(*)::int AS n FROM runs")).toEqual([{ n: 0 }]);
        expect(await store.sql.query("SELECT count(*)::int AS n FROM cases")).toEqual([{ n: 0 }]);
        await store.record(sampleResults(["passed"], "2026-11-06T00:00:00Z"), "run");
        expect(await store.sql.query("SELECT count(*)::int AS n FROM runs WHERE complete")).toEqual([
          { n: 1 },
        ]);
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

interface ChildOutput {
  stdout: string;
  stderr: string;
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Runs record-child.mjs; with killAfterWriting, SIGKILLs it that many ms after it starts writing. */
function runChild(
  db: string,
  file: string,
  options: { killAfterWriting?: number } = {},
): Promise<ChildOutput> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, db, file], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      if (options.killAfterWriting !== undefined && stdout.includes("writing")) {
        setTimeout(() => child.kill("SIGKILL"), options.killAfterWriting);
      }
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ stdout, stderr, code, signal }));
  });
}
