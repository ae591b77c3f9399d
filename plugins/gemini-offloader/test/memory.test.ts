import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, test } from "vitest";
import {
  FailureResultSchema,
  MemoryAddResultSchema,
  MemoryFilterResultSchema,
  MemoryGetResultSchema,
  MemoryIndexOffloadResultSchema,
  MemorySearchResultSchema,
  MemoryStoreResponseResultSchema,
  UsageResultSchema,
} from "../src/results.js";
import { DIST, expectShape, fakeGeminiForFile, runScript, workspace } from "./helpers.js";

const gemini = fakeGeminiForFile();

/** Memory never needs Gemini: these runs have neither GEMINI_BIN nor gemini on PATH. */
function noGeminiEnv(base: string) {
  return gemini.env(base, { geminiBin: null, path: dirname(process.execPath) });
}

describe.concurrent("memory", () => {
  test.each([
    [["forget"], 'Unknown action "forget"'],
    [["add", "--topic", "x"], "add needs --text TEXT, or the text piped to stdin"],
    [["add", "--text", "x", "--source", "web"], "--source must be one of manual, query, session, stdin"],
    [["search"], "--query is required"],
    [["search", "--query", "x", "--limit", "none"], "--limit must be a whole number"],
    [["filter", "--since", "last tuesday"], "--since must be a date"],
    [["get", "--query", "x"], "get does not take --query"],
    [["index-offload", "--project", "mine"], "--project must be current or all"],
  ])("%j is refused with exit 2", async (args, message) => {
    const { base, project } = workspace("memory-args");
    const run = await runScript("memory", args, { env: noGeminiEnv(base), cwd: project });
    expect(run.exitCode).toBe(2);
    expect(expectShape(UsageResultSchema, run.json).error).toContain(message);
  });

  test("add with neither --text nor input, stdin an open silent pipe: exit 2 promptly, no hang", async () => {
    const { base, project } = workspace("memory-openpipe");
    const run = await runScript("memory", ["add", "--topic", "x"], {
      env: noGeminiEnv(base),
      cwd: project,
      stdin: "open",
      killAfterMs: 20_000,
    });
    expect(run.exitCode).toBe(2);
    expect(run.json.error).toContain("add needs --text TEXT");
  });

  test("add, search, filter, get and delete, without Gemini installed", async () => {
    const { base, project } = workspace("memory-cycle");
    const { project: otherProject } = workspace("memory-other");
    const env = noGeminiEnv(base);
    const add = async (args: string[], cwd = project, stdin?: string) => {
      const run = await runScript("memory", ["add", ...args], { env, cwd, ...(stdin ? { stdin } : {}) });
      expect(run.exitCode).toBe(0);
      return expectShape(MemoryAddResultSchema, run.json).memory;
    };
    const long = `Wasmtime has the fastest cold start of the runtimes measured. ${"Details follow. ".repeat(30)}`;
    const wasm = await add(["--text", long, "--topic", "wasm"]);
    const session = await add([
      "--text",
      "Wasmer supports more languages",
      "--topic",
      "wasm",
      "--session",
      "deep-dive",
    ]);
    const piped = await add(["--topic", "rust"], project, "Rust async runtimes: tokio dominates\n");
    const elsewhere = await add(
      ["--text", "Cold start matters for serverless", "--topic", "serverless"],
      otherProject,
    );
    expect(wasm).toMatchObject({ source: "manual", topic: "wasm", session: null, project_path: project });
    expect(piped).toMatchObject({ source: "stdin", text: "Rust async runtimes: tokio dominates" });
    expect(elsewhere.project_hash).not.toBe(wasm.project_hash);

    const search = async (args: string[]) =>
      expectShape(
        MemorySearchResultSchema,
        (await runScript("memory", ["search", ...args], { env, cwd: project })).json,
      );
    expect((await search(["--query", "cold start"])).results.map((r) => r.id).sort()).toEqual(
      [wasm.id, elsewhere.id].sort(),
    );
    const coldStart = await search(["--query", "wasmtime cold start"]);
    expect(coldStart.results.map((r) => r.id)).toEqual([wasm.id, elsewhere.id]);
    expect(coldStart.results[0]!.score).toBeGreaterThan(coldStart.results[1]!.score);
    expect(coldStart.results[0]!.text.length).toBeLessThanOrEqual(300);
    expect(coldStart.results[0]!.text_chars).toBe(long.length);
    // Prefix and typo tolerant.
    expect((await search(["--query", "wasmtim"])).results.map((r) => r.id)).toEqual([wasm.id]);
    expect((await search(["--query", "tokiu"])).results.map((r) => r.id)).toEqual([piped.id]);
    // Filters apply to search too.
    expect(
      (await search(["--query", "cold start", "--project", "current"])).results.map((r) => r.id),
    ).toEqual([wasm.id]);
    expect((await search(["--query", "wasmer", "--session", "deep-dive"])).count).toBe(1);
    expect((await search(["--query", "wasmer", "--session", "other"])).count).toBe(0);

    const filter = async (args: string[]) =>
      expectShape(
        MemoryFilterResultSchema,
        (await runScript("memory", ["filter", ...args], { env, cwd: project })).json,
      )
        .memories.map((m) => m.id)
        .sort();
    expect(await filter(["--topic", "WASM"])).toEqual([wasm.id, session.id].sort());
    expect(await filter(["--source", "stdin"])).toEqual([piped.id]);
    expect(await filter(["--session", "deep-dive"])).toEqual([session.id]);
    expect(await filter(["--since", "1h"])).toHaveLength(4);
    expect(await filter(["--since", "2999-01-01"])).toEqual([]);
    expect(await filter(["--project", "current"])).toHaveLength(3);

    const got = await runScript("memory", ["get", "--id", wasm.id], { env, cwd: project });
    expect(expectShape(MemoryGetResultSchema, got.json).memory.text).toBe(long);

    const deleted = await runScript("memory", ["delete", "--id", wasm.id], { env, cwd: project });
    expect(deleted.json).toMatchObject({ success: true, deleted: wasm.id });
    const missing = await runScript("memory", ["get", "--id", wasm.id], { env, cwd: project });
    expect(missing.exitCode).toBe(1);
    expect(expectShape(FailureResultSchema, missing.json).error).toContain(`No memory with id ${wasm.id}`);
    expect((await search(["--query", "wasmtime"])).count).toBe(0);
  });

  test("parallel adds (the agent may run several) all land", async () => {
    const { base, project } = workspace("memory-parallel");
    const env = noGeminiEnv(base);
    const runs = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        runScript("memory", ["add", "--text", `finding number ${i}`], { env, cwd: project }),
      ),
    );
    expect(runs.map((run) => run.exitCode)).toEqual([0, 0, 0, 0, 0, 0]);
    const listed = await runScript("memory", ["filter"], { env, cwd: project });
    expect(expectShape(MemoryFilterResultSchema, listed.json).count).toBe(6);
    const found = await runScript("memory", ["search", "--query", "finding"], { env, cwd: project });
    expect(expectShape(MemorySearchResultSchema, found.json).count).toBe(6);
  });

  test("query | memory store-response stores the whole answer once; index-offload finds it already there", async () => {
    const { base, project } = workspace("memory-store");
    const env = gemini.env(base);
    const answer = "Tokio is the most used async runtime. It has a work-stealing scheduler.";
    gemini.server.addRule({ match: "M-STORE", text: answer });
    const query = await runScript(
      "query",
      ["-p", "M-STORE which runtime?", "--model", "gemini-2.5-pro", "--summary-chars", "20"],
      {
        env,
        cwd: project,
      },
    );
    expect(query.json).toMatchObject({ success: true, truncated: true });

    const stored = await runScript("memory", ["store-response", "--topic", "rust"], {
      env,
      cwd: project,
      stdin: query.stdout,
    });
    expect(stored.exitCode).toBe(0);
    const memory = expectShape(MemoryStoreResponseResultSchema, stored.json);
    expect(memory).toMatchObject({
      already_stored: false,
      memory: {
        text: answer,
        source: "query",
        topic: "rust",
        model: "gemini-2.5-pro",
        origin: query.json.cache_key,
      },
    });
    const twice = await runScript("memory", ["store-response"], { env, cwd: project, stdin: query.stdout });
    expect(twice.json).toMatchObject({ already_stored: true, memory: { id: memory.memory.id } });

    const offload = await runScript("memory", ["index-offload"], { env, cwd: project });
    expect(expectShape(MemoryIndexOffloadResultSchema, offload.json)).toMatchObject({
      found: 1,
      indexed: 0,
      already_indexed: 1,
    });

    // As in `query.js ... | memory.js store-response`: the answer arrives only when Gemini is done.
    const answerFile = join(project, "query-output.json");
    writeFileSync(answerFile, query.stdout);
    const delayed = spawnSync(
      "sh",
      ["-c", `(sleep 2; cat "$ANSWER_FILE") | node "$MEMORY_JS" store-response --topic late`],
      {
        cwd: project,
        env: { ...process.env, ...env, ANSWER_FILE: answerFile, MEMORY_JS: join(DIST, "memory.js") },
        encoding: "utf8",
        timeout: 60_000,
      },
    );
    expect(delayed.status, delayed.stdout + delayed.stderr).toBe(0);
    expect(JSON.parse(delayed.stdout)).toMatchObject({
      already_stored: true,
      memory: { id: memory.memory.id },
    });

    const failedQuery = JSON.stringify({
      success: false,
      error: "timeout: Gemini did not answer within 3 s.",
    });
    const refused = await runScript("memory", ["store-response"], { env, cwd: project, stdin: failedQuery });
    expect(refused.exitCode).toBe(1);
    expect(refused.json.error).toContain("Nothing to store: that query failed");
  });
});
