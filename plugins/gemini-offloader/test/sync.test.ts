import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import {
  MemorySearchResultSchema,
  SyncCheckResultSchema,
  SyncPruneResultSchema,
  SyncRebuildResultSchema,
  SyncStatsResultSchema,
  UsageResultSchema,
} from "../src/results.js";
import { expectShape, fakeGeminiForFile, runScript, workspace } from "./helpers.js";

const gemini = fakeGeminiForFile();

describe("sync", () => {
  test.concurrent.each([
    [[], "Say what to do first"],
    [["vacuum"], 'Unknown action "vacuum"'],
    [["check", "--dry-run"], "--dry-run and --older-than are options of prune"],
    [["prune", "--older-than", "soon"], "--older-than must be a duration"],
  ])("%j is refused with exit 2", async (args, message) => {
    const { base, project } = workspace("sync-args");
    const run = await runScript("sync", args, { env: gemini.env(base), cwd: project });
    expect(run.exitCode).toBe(2);
    expect(expectShape(UsageResultSchema, run.json).error).toContain(message);
  });

  test("stats, check finds every kind of drift, prune --dry-run and prune remove it, rebuild fixes the index", async () => {
    const { base, project } = workspace("sync");
    const env = gemini.env(base);
    const sync = async (...args: string[]) => {
      const run = await runScript("sync", args, { env, cwd: project });
      expect(run.exitCode).toBe(0);
      return run.json;
    };
    const query = await runScript("query", ["-p", "Y-SYNC cached answer", "--model", "gemini-2.5-pro"], {
      env,
      cwd: project,
    });
    expect(query.json.success).toBe(true);
    const sessionRun = await runScript(
      "session",
      ["create", "--name", "kept", "--prompt", "Y-SYNC session", "--model", "gemini-2.5-pro"],
      {
        env,
        cwd: project,
      },
    );
    expect(sessionRun.json.success).toBe(true);
    await runScript("memory", ["add", "--text", "an early finding"], { env, cwd: project });

    expect(expectShape(SyncCheckResultSchema, await sync("check"))).toMatchObject({
      healthy: true,
      problems: [],
    });
    const stats = expectShape(SyncStatsResultSchema, await sync("stats"));
    expect(stats.totals).toMatchObject({
      projects: 1,
      cache_entries: 1,
      response_files: 1,
      named_sessions: 1,
      memories: 1,
    });
    expect(stats.projects[0]).toMatchObject({
      path: project,
      named_sessions: { healthy: 1, stale: 0, legacy: 0 },
    });
    expect(stats.memory_index.in_sync).toBe(true);

    // Damage of every kind.
    const projectDir = join(base, "projects", stats.projects[0]!.hash);
    const entryFile = join(projectDir, "cache", `${query.json.cache_key}.json`);
    const entry = JSON.parse(readFileSync(entryFile, "utf8"));
    const oldKey = "0".repeat(32);
    const oldResponse = join(projectDir, "responses", `${oldKey}.md`);
    copyFileSync(entry.response_file, oldResponse);
    writeFileSync(
      join(projectDir, "cache", `${oldKey}.json`),
      JSON.stringify({
        ...entry,
        key: oldKey,
        response_file: oldResponse,
        created_at: "2020-01-01T00:00:00.000Z",
      }),
    );
    rmSync(entry.response_file); // cache_missing_response
    writeFileSync(join(projectDir, "responses", "orphan.md"), "nobody refers to me"); // orphan_response
    writeFileSync(join(projectDir, "cache", "broken.json"), "{ not json"); // invalid_file
    const sessionsFile = join(projectDir, "sessions.json");
    const sessions = JSON.parse(readFileSync(sessionsFile, "utf8"));
    sessions.sessions.gone = {
      ...sessions.sessions.kept,
      session_id: "11111111-2222-3333-4444-555555555555",
    }; // stale
    sessions.sessions.old = 2; // legacy
    writeFileSync(sessionsFile, JSON.stringify(sessions));
    const storeFile = join(base, "memory", "memories.json");
    const store = JSON.parse(readFileSync(storeFile, "utf8"));
    store.memories.push({
      ...store.memories[0],
      id: "mem_by_hand",
      text: "added by hand, behind the index's back",
    });
    store.revision += 1;
    writeFileSync(storeFile, JSON.stringify(store)); // index_drift

    const check = expectShape(SyncCheckResultSchema, await sync("check"));
    expect(check.healthy).toBe(false);
    expect(check.problems.map((p) => p.kind).sort()).toEqual([
      "cache_missing_response",
      "index_drift",
      "invalid_file",
      "legacy_session",
      "orphan_response",
      "stale_session",
    ]);
    expect(check.problems.find((p) => p.kind === "stale_session")!.detail).toContain('"gone"');

    const dryRun = expectShape(SyncPruneResultSchema, await sync("prune", "--dry-run", "--older-than", "7d"));
    expect(dryRun).toMatchObject({
      dry_run: true,
      removed: { cache_entries: 2, response_files: 2, invalid_files: 1, session_names: 1 },
      session_names: ["gone"],
    });
    expect(existsSync(join(projectDir, "responses", "orphan.md"))).toBe(true);
    expect(expectShape(SyncCheckResultSchema, await sync("check")).problems).toHaveLength(6);

    const pruned = expectShape(SyncPruneResultSchema, await sync("prune", "--older-than", "7d"));
    expect(pruned.removed).toEqual(dryRun.removed);
    expect(pruned.paths.sort()).toEqual(dryRun.paths.sort());
    for (const path of pruned.paths) expect(existsSync(path)).toBe(false);
    const afterPrune = expectShape(SyncCheckResultSchema, await sync("check"));
    expect(afterPrune.problems.map((p) => p.kind).sort()).toEqual(["index_drift", "legacy_session"]);
    expect(Object.keys(JSON.parse(readFileSync(sessionsFile, "utf8")).sessions).sort()).toEqual([
      "kept",
      "old",
    ]);

    const rebuilt = expectShape(SyncRebuildResultSchema, await sync("rebuild"));
    expect(rebuilt.rebuilt).toEqual({ memories: 2, revision: store.revision });
    expect(expectShape(SyncCheckResultSchema, await sync("check")).problems.map((p) => p.kind)).toEqual([
      "legacy_session",
    ]);
    const found = await runScript("memory", ["search", "--query", "behind the index"], { env, cwd: project });
    expect(expectShape(MemorySearchResultSchema, found.json).results.map((r) => r.id)).toEqual([
      "mem_by_hand",
    ]);

    // The session's turn was never stored: index-offload adds it, named after its session.
    const offload = await runScript("memory", ["index-offload"], { env, cwd: project });
    expect(offload.json).toMatchObject({ found: 1, indexed: 1 });
    expect((offload.json.memories as Array<Record<string, unknown>>)[0]).toMatchObject({
      source: "session",
      session: "kept",
      text: "Fake Gemini answer to: Y-SYNC session",
    });
  });
});
