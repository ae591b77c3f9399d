import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildResults, type CaseResult, type CaseStatus } from "@evals/logging";
import { afterAll, describe, expect, it } from "vitest";
import { evalsBin, runEvals } from "./evals-bin.js";

const temp = mkdtempSync(join(tmpdir(), "evals-lazy-commands-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));
const register = join(import.meta.dirname, "__fixtures__", "loaded-packages", "register.mjs");

/** The packages (workspace packages by folder name, others by name) `evals <args>` imported. */
function packagesLoadedBy(args: string[]): { code: number | null; packages: string[]; stdout: string } {
  const file = join(temp, `loaded-${args[0]}-${Math.random().toString(36).slice(2)}.txt`);
  const child = spawnSync(process.execPath, ["--import", register, evalsBin, ...args], {
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, LOADED_MODULES_FILE: file, FORCE_COLOR: "0" },
  });
  const urls = readFileSync(file, "utf8").trim().split("\n");
  const packages = new Set(
    urls.flatMap((url) => {
      const found = /\/packages\/([^/]+)\/dist\/|\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
      return found ? [found[1] ?? found[2]!] : [];
    }),
  );
  return { code: child.status, packages: [...packages].sort(), stdout: child.stdout };
}

/** A results file of one run: case `c<i>` of suite `s` with statuses[i], finished at `finishedAt`. */
function resultsFile(name: string, statuses: CaseStatus[], finishedAt: string): string {
  const cases = statuses.map(
    (status, i): CaseResult => ({
      id: `c${i}`,
      name: `case c${i}`,
      suite: "s",
      tags: [],
      status,
      scores: [],
      trials: [{ trial: 0, status, scores: [], violations: [], duration_ms: 10 }],
      violations: [],
      duration_ms: 10,
    }),
  );
  const finished = new Date(finishedAt);
  const file = join(temp, name);
  writeFileSync(
    file,
    JSON.stringify(
      buildResults(cases, {
        suite: "s",
        startedAt: new Date(finished.getTime() - 1000),
        finishedAt: finished,
        meta: { git_commit: "0123456789abcdef0123456789abcdef01234567" },
      }),
    ),
  );
  return file;
}

describe("evals loads what the command it runs needs, not every command's packages", () => {
  it("evals history loads the results database, not the agent runners, the rules or the server client", () => {
    const { code, packages } = packagesLoadedBy(["history", "--db", join(temp, "no-db-yet")]);
    expect(code).toBe(0);
    expect(packages).toContain("store");
    for (const unneeded of [
      "harness",
      "claude-code",
      "opencode",
      "codex",
      "gemini-cli",
      "vcr",
      "viewer",
      "evaluators",
      "pg",
    ])
      expect(packages).not.toContain(unneeded);
  });

  it("evals history answers from the history digest, loading neither PGlite nor zod, as the database answers", () => {
    const db = join(temp, "with-digest");
    const runs = [
      resultsFile("r1.json", ["passed", "failed", "skipped"], "2026-11-01T10:00:00Z"),
      resultsFile("r2.json", ["failed", "passed", "passed"], "2026-11-02T10:00:00Z"),
      resultsFile("r3.json", ["passed", "error", "passed"], "2026-11-03T10:00:00Z"),
    ];
    expect(runEvals(["history", "import", runs[0]!, "--db", db]).code).toBe(0);
    const digest = `${db}.history.jsonl`;
    for (const args of [[], ["--json"], ["c1", "--last", "2"], ["--since", "2026-11-02", "--json"]]) {
      // From the database (no digest: this one writes it), then from the digest the first wrote;
      // an import in between appends its run.
      rmSync(digest, { force: true });
      const fromDb = packagesLoadedBy(["history", "--db", db, ...args]);
      expect(fromDb.code).toBe(0);
      expect(fromDb.packages).toContain("@electric-sql/pglite");
      expect(existsSync(digest)).toBe(true);
      const fromDigest = packagesLoadedBy(["history", "--db", db, ...args]);
      expect(fromDigest.code).toBe(0);
      expect(fromDigest.stdout).toBe(fromDb.stdout);
      for (const unneeded of ["@electric-sql/pglite", "zod", "pg"])
        expect(fromDigest.packages).not.toContain(unneeded);
    }
    for (const file of runs.slice(1)) expect(runEvals(["history", "import", file, "--db", db]).code).toBe(0);
    const appended = runEvals(["history", "--db", db, "--json"]);
    rmSync(digest);
    expect(runEvals(["history", "--db", db, "--json"]).stdout).toBe(appended.stdout);
    expect(JSON.parse(appended.stdout).cases.map((c: { runs: unknown[] }) => c.runs.length)).toEqual([
      3, 3, 2,
    ]);
  }, 180_000);

  it("evals --version loads no other package", () => {
    const { code, packages } = packagesLoadedBy(["--version"]);
    expect(code).toBe(0);
    expect(packages).toEqual(["cli"]);
  });
});
