import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CaseStatus, ResultsFile } from "@evals/logging";
import {
  caseHistory,
  HistoryDigestHeaderSchema,
  HistoryDigestRunSchema,
  type HistoryQuery,
  historyDigestFile,
  historyDigestJsonSchemas,
  historyFromDigest,
  importResults,
  readHistoryDigest,
  refreshHistoryDigest,
  Store,
} from "@evals/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleCase, sampleResults } from "./sample-results.js";

// The history digest is the embedded database's alone (a server is read directly).
const root = mkdtempSync(join(tmpdir(), "evals-digest-"));
const template = join(root, "template");
let n = 0;
beforeAll(async () => {
  // Creating a database runs initdb inside WebAssembly (seconds): each test gets a copy of one.
  await (await Store.open({ kind: "embedded", dir: template })).close();
}, 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

function freshDb(): string {
  const dir = join(root, `db-${++n}`);
  cpSync(template, dir, { recursive: true });
  return dir;
}

/** A run whose cases have these ids and statuses, in two suites (ids that sort differently by case). */
function run(cases: [string, CaseStatus][], finishedAt: string, meta: Partial<ResultsFile["meta"]> = {}) {
  const results = sampleResults([], finishedAt, meta);
  results.cases = cases.map(([id, status], i) => ({
    ...sampleCase(id, status, 1 + (i % 3)),
    suite: i % 2 === 0 ? "sample" : "Other",
  }));
  return results;
}

const RUNS = [
  run(
    [
      ["b", "passed"],
      ["B", "failed"],
      ["a", "passed"],
      ["z-skip", "skipped"],
    ],
    "2026-11-01T10:00:00Z",
  ),
  run(
    [
      ["b", "failed"],
      ["B", "passed"],
      ["a", "error"],
    ],
    "2026-11-02T10:00:00Z",
    { git_commit: "fedcba9876543210fedcba9876543210fedcba98" },
  ),
  // One shard of a run: not counted, by the database or the digest.
  run([["a", "failed"]], "2026-11-03T10:00:00Z", { shard: { index: 1, count: 2, positions: [0] } }),
  run(
    [
      ["b", "passed"],
      ["a", "passed"],
      ["new", "passed"],
    ],
    "2026-11-04T10:00:00Z",
  ),
];

const QUERIES: HistoryQuery[] = [
  {},
  { last: 2 },
  { last: 1 },
  { since: new Date("2026-11-02T00:00:00Z") },
  { cases: ["a", "B"] },
  { cases: ["nope"] },
  { cases: ["b"], since: new Date("2026-11-04T00:00:00Z"), last: 5 },
];

async function expectDigestAnswersAsTheDatabase(store: Store) {
  const digest = readHistoryDigest(store.digestFile!);
  expect(digest).toBeDefined();
  // Every line of its format (what a writer appended, or the reader wrote from the database).
  const [header, ...lines] = readFileSync(store.digestFile!, "utf8").trimEnd().split("\n");
  HistoryDigestHeaderSchema.parse(JSON.parse(header!));
  for (const line of lines) HistoryDigestRunSchema.parse(JSON.parse(line));
  for (const query of QUERIES)
    expect(JSON.stringify(historyFromDigest(digest!, query))).toBe(
      JSON.stringify(await caseHistory(store, query)),
    );
}

describe("the history digest of the embedded database", () => {
  it("answers as the database does, and each new run recorded or imported is appended to it", async () => {
    const dir = freshDb();
    const file = historyDigestFile(dir);
    const store = await Store.open({ kind: "embedded", dir });
    try {
      await store.record(RUNS[0]!, "run");
      expect(existsSync(file)).toBe(false); // none yet: evals history writes it
      await refreshHistoryDigest(store);
      await expectDigestAnswersAsTheDatabase(store);
      for (const results of RUNS.slice(1, 3)) await store.record(results, "run");
      const resultsFile = join(root, "import.json");
      writeFileSync(resultsFile, JSON.stringify(RUNS[3]));
      await importResults(store, [resultsFile]);
      // The same run again (recorded, then imported): nothing added, the digest kept as it is.
      const before = readFileSync(file, "utf8");
      expect((await store.record(RUNS[1]!, "import")).added).toBe(false);
      expect(readFileSync(file, "utf8")).toBe(before);
      expect(readHistoryDigest(file)).toHaveLength(3); // the shard is not in it
      await expectDigestAnswersAsTheDatabase(store);
    } finally {
      await store.close();
    }
  }, 120_000);

  it("a writer killed between its commit and its append leaves no digest; the next reader rebuilds it", async () => {
    const dir = freshDb();
    const file = historyDigestFile(dir);
    let store = await Store.open({ kind: "embedded", dir });
    await store.record(RUNS[0]!, "run");
    await refreshHistoryDigest(store);
    const beforeTheWrite = readFileSync(file, "utf8");
    await store.record(RUNS[1]!, "run");
    await store.close();
    // What a SIGKILL right after the commit leaves: the run in the database, the digest set aside
    // without it.
    rmSync(file);
    writeFileSync(`${file}.writing`, beforeTheWrite);
    expect(readHistoryDigest(file)).toBeUndefined();
    store = await Store.open({ kind: "embedded", dir });
    try {
      expect(existsSync(`${file}.writing`)).toBe(false);
      await refreshHistoryDigest(store);
      expect(readHistoryDigest(file)?.map((r) => r.finished_at)).toEqual([
        "2026-11-01T10:00:00.000Z",
        "2026-11-02T10:00:00.000Z",
      ]);
      await expectDigestAnswersAsTheDatabase(store);
    } finally {
      await store.close();
    }
  }, 120_000);

  it("a digest of another version or with a line not of its shape is not read (a half-written last line is left out); the reader rebuilds it", async () => {
    const dir = freshDb();
    const file = historyDigestFile(dir);
    const store = await Store.open({ kind: "embedded", dir });
    try {
      await store.record(RUNS[0]!, "run");
      await store.record(RUNS[1]!, "run");
      await refreshHistoryDigest(store);
      const good = readFileSync(file, "utf8");
      // A line being appended right now (no newline yet) is left out.
      writeFileSync(file, `${good}{"id":"x","fin`);
      expect(readHistoryDigest(file)).toHaveLength(2);
      writeFileSync(file, `${good}{"id":"x","finished_at":"2026-11-05T00:00:00.000Z","cases":7}\n`);
      expect(readHistoryDigest(file)).toBeUndefined();
      writeFileSync(file, good.replace('"version":1', '"version":0'));
      expect(readHistoryDigest(file)).toBeUndefined();
      await refreshHistoryDigest(store);
      expect(readFileSync(file, "utf8")).toBe(good);
      await expectDigestAnswersAsTheDatabase(store);
    } finally {
      await store.close();
    }
  }, 120_000);

  it("a run recorded again in place (its first write not completed) deletes the digest", async () => {
    const dir = freshDb();
    const file = historyDigestFile(dir);
    const store = await Store.open({ kind: "embedded", dir });
    try {
      const { runId } = await store.record(RUNS[0]!, "run");
      await refreshHistoryDigest(store);
      await store.sql.query("UPDATE runs SET complete = false WHERE id = $1", [runId]);
      expect((await store.record(RUNS[0]!, "run")).added).toBe(true);
      expect(existsSync(file)).toBe(false);
    } finally {
      await store.close();
    }
  }, 120_000);

  it("ships the JSON Schemas of its lines as generated (npm run schemas -w @evals/store writes them)", () => {
    for (const [name, schema] of Object.entries(historyDigestJsonSchemas()))
      expect(JSON.parse(readFileSync(new URL(`../schemas/${name}.json`, import.meta.url), "utf8"))).toEqual(
        schema,
      );
  });
});
