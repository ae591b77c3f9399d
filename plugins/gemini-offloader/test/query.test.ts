import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, test } from "vitest";
import { QueryResultSchema, UsageResultSchema } from "../src/results.js";
import { expectShape, fakeGeminiForFile, runScript, workspace } from "./helpers.js";

const gemini = fakeGeminiForFile();
const MODEL = ["--model", "gemini-2.5-pro"];

/** Processes whose command line contains `marker` (Linux /proc), to prove Gemini was killed. */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(marker)) found.push(Number(entry));
    } catch {
      // Gone while looking.
    }
  }
  return found;
}

/**
 * Long text that does not repeat itself (Gemini's loop detection stops a turn whose answer
 * repeats, and returns nothing): words from a fixed list picked by a small generator.
 */
function variedText(chars: number): string {
  const words = [
    "wasm",
    "runtime",
    "cold",
    "start",
    "memory",
    "sandbox",
    "component",
    "module",
    "host",
    "guest",
  ];
  let seed = 7;
  const paragraphs: string[] = [];
  let length = 0;
  while (length < chars) {
    const sentence: string[] = [];
    for (let i = 0; i < 60; i++) {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      sentence.push(`${words[seed % words.length]}${seed % 997}`);
    }
    const paragraph = `${sentence.join(" ")}.`;
    paragraphs.push(paragraph);
    length += paragraph.length + 2;
  }
  return paragraphs.join("\n\n");
}

describe("query: arguments", () => {
  test.concurrent.each([
    [[], "--prompt is required"],
    [["--prompt"], "argument missing"],
    [["-p", "x", "--bogus"], "Unknown option '--bogus'"],
    [["-p", "x", "--timeout", "0"], "--timeout must be a number of seconds from 1 to 3600"],
    [["-p", "x", "--timeout", "soon"], "--timeout must be a number"],
    [["-p", "x", "--summary-chars", "-5"], "--summary-chars"],
    [["-p", "x", "--include-dirs", "no-such-folder"], "is not a folder"],
  ])("%j is refused with exit 2 and the usage", async (args, message) => {
    const { base, project } = workspace("args");
    const run = await runScript("query", args, { env: gemini.env(base), cwd: project });
    expect(run.exitCode).toBe(2);
    const output = expectShape(UsageResultSchema, run.json);
    expect(output.success).toBe(false);
    expect(output.error).toContain(message);
    expect(output.usage).toContain("--prompt TEXT");
    expect(gemini.server.requests.filter((r) => r.prompt === "x")).toHaveLength(0);
  });

  test("--help prints the usage and exits 0", async () => {
    const { base, project } = workspace("help");
    const run = await runScript("query", ["--help"], { env: gemini.env(base), cwd: project });
    expect(run.exitCode).toBe(0);
    expect(expectShape(UsageResultSchema, run.json).usage).toContain("Exit codes");
  });

  test("--help of every script shows real defaults (the timeout is 90 s, never undefined)", async () => {
    const { base, project } = workspace("help-defaults");
    for (const script of ["launcher", "init", "query", "session", "memory", "status", "sync"] as const) {
      const run = await runScript(script, ["--help"], { env: gemini.env(base), cwd: project });
      const usage = expectShape(UsageResultSchema, run.json).usage;
      expect(usage, script).not.toMatch(/undefined|NaN|\[object /);
    }
    const query = await runScript("query", ["--help"], { env: gemini.env(base), cwd: project });
    expect(expectShape(UsageResultSchema, query.json).usage).toContain(
      "(default 90 s, or GEMINI_OFFLOADER_TIMEOUT)",
    );
  });
});

describe("query: Gemini missing", () => {
  test("no gemini on PATH and no GEMINI_BIN: exit 1 at once with an install hint, stdin not awaited", async () => {
    const { base, project } = workspace("missing");
    const env = gemini.env(base, { geminiBin: null, path: dirname(process.execPath) });
    const run = await runScript("query", ["-p", "anything"], {
      env,
      cwd: project,
      stdin: "open",
      killAfterMs: 15_000,
    });
    expect(run.exitCode).toBe(1);
    const output = expectShape(QueryResultSchema, run.json);
    expect(output.success).toBe(false);
    expect(output.error).toContain("not on PATH");
    expect(output.install_hint).toContain("npm install -g @google/gemini-cli");
  });

  test("GEMINI_BIN naming a file that does not exist: exit 1, says which", async () => {
    const { base, project } = workspace("missing-bin");
    const env = gemini.env(base, { geminiBin: join(base, "nowhere", "gemini") });
    const run = await runScript("query", ["-p", "anything"], { env, cwd: project });
    expect(run.exitCode).toBe(1);
    expect(run.json.error).toContain(
      `GEMINI_BIN=${join(base, "nowhere", "gemini")} is not an executable file`,
    );
  });
});

describe.concurrent("query with the real Gemini CLI", () => {
  test("a miss asks Gemini; the same query is then served from the cache without Gemini", async () => {
    const { base, project } = workspace("hit");
    const env = gemini.env(base);
    const prompt = "Q-CACHE what is WASI?";
    const first = expectShape(
      QueryResultSchema,
      (await runScript("query", ["-p", prompt, ...MODEL], { env, cwd: project })).json,
    );
    expect(first).toMatchObject({
      success: true,
      cached: false,
      stale: false,
      response: `Fake Gemini answer to: ${prompt}`,
      model: "gemini-2.5-pro",
      diagnostic: null,
      error: null,
    });
    expect(first.session_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(readFileSync(first.full_response_path!, "utf8")).toBe(first.response);
    expect(first.full_response_path!.startsWith(join(base, "projects"))).toBe(true);

    const second = await runScript("query", ["-p", prompt, ...MODEL], { env, cwd: project });
    expect(second.exitCode).toBe(0);
    const hit = expectShape(QueryResultSchema, second.json);
    expect(hit).toMatchObject({ success: true, cached: true, stale: false, response: first.response });
    expect(hit.cache_key).toBe(first.cache_key);
    expect(gemini.server.requestsFor("Q-CACHE")).toHaveLength(1);

    // A different model is a different entry. (Run with a stdin pipe left open and silent: the
    // script must not wait for it.)
    const other = await runScript("query", ["-p", prompt, "--model", "gemini-2.5-flash"], {
      env,
      cwd: project,
      stdin: "open",
      killAfterMs: 90_000,
    });
    expect(other.exitCode).toBe(0);
    expect(other.json).toMatchObject({ cached: false, model: "gemini-2.5-flash", context_chars: 0 });
  });

  test("--no-cache asks Gemini again even when a fresh entry exists", async () => {
    const { base, project } = workspace("nocache");
    const env = gemini.env(base);
    const prompt = "Q-NOCACHE compare runtimes";
    await runScript("query", ["-p", prompt, ...MODEL], { env, cwd: project });
    const again = await runScript("query", ["-p", prompt, ...MODEL, "--no-cache"], { env, cwd: project });
    expect(again.exitCode).toBe(0);
    expect(again.json).toMatchObject({ success: true, cached: false, stale: false });
    expect(gemini.server.requestsFor("Q-NOCACHE")).toHaveLength(2);
  });

  test("a changed file under --include-dirs makes the entry stale and Gemini is asked again", async () => {
    const { base, project } = workspace("stale");
    const env = gemini.env(base);
    mkdirSync(join(project, "docs"));
    writeFileSync(join(project, "docs", "design.md"), "version one\n");
    writeFileSync(join(project, "docs", "notes.md"), "unchanged\n");
    const args = ["-p", "Q-STALE summarise the docs", ...MODEL, "--include-dirs", "docs"];
    const first = await runScript("query", args, { env, cwd: project });
    expect(first.json).toMatchObject({ success: true, cached: false, stale: false });
    expect((await runScript("query", args, { env, cwd: project })).json).toMatchObject({ cached: true });

    writeFileSync(join(project, "docs", "design.md"), "version two, longer\n");
    const afterEdit = expectShape(
      QueryResultSchema,
      (await runScript("query", args, { env, cwd: project })).json,
    );
    expect(afterEdit).toMatchObject({ success: true, cached: false, stale: true });
    expect(afterEdit.changed_files).toEqual([join(project, "docs", "design.md")]);

    const refreshed = await runScript("query", args, { env, cwd: project });
    expect(refreshed.json).toMatchObject({ cached: true, stale: false });
    expect(gemini.server.requestsFor("Q-STALE")).toHaveLength(2);
    // Gemini was told about the folder.
    const request = gemini.server.requestsFor("Q-STALE")[0]!;
    expect(JSON.stringify(request.body)).toContain(join(project, "docs"));
  });

  test("piped stdin reaches Gemini as context and keys the cache (no --model: the router gets valid JSON)", async () => {
    const { base, project } = workspace("stdin");
    const env = gemini.env(base);
    const args = ["-p", "Q-STDIN summarise this"];
    const context = "CONTEXT-ALPHA line one\nline two\n";
    const first = await runScript("query", args, { env, cwd: project, stdin: context });
    expect(first.json).toMatchObject({ success: true, cached: false, context_chars: context.length });
    const main = gemini.server.requestsFor("Q-STDIN")[0]!;
    expect(main.prompt).toContain("CONTEXT-ALPHA line one");
    // Without --model the CLI asks its router first (a JSON-schema request) and reports the main model.
    expect(gemini.server.requests.some((r) => r.jsonSchema && r.method === "generateContent")).toBe(true);
    expect(first.json.model).toBe(main.model);

    const sameContext = await runScript("query", args, {
      env,
      cwd: project,
      stdin: "CONTEXT-ALPHA line one\nline two\n",
    });
    expect(sameContext.json).toMatchObject({ cached: true });
    const otherContext = await runScript("query", args, { env, cwd: project, stdin: "CONTEXT-BETA\n" });
    expect(otherContext.json).toMatchObject({ cached: false });
    expect(gemini.server.requestsFor("Q-STDIN")).toHaveLength(2);
  });

  test("a long answer is summarised; --output and full_response_path hold all of it", async () => {
    const { base, project } = workspace("long");
    const answer = variedText(9_000);
    gemini.server.addRule({ match: "Q-LONG", text: answer });
    const run = await runScript(
      "query",
      ["-p", "Q-LONG write a report", ...MODEL, "--summary-chars", "600", "--output", "out/report.md"],
      { env: gemini.env(base), cwd: project },
    );
    const output = expectShape(QueryResultSchema, run.json);
    expect(output).toMatchObject({ success: true, truncated: true, response_chars: answer.length });
    expect(output.response!.length).toBeLessThan(800);
    expect(output.response).toContain(
      `the full answer (${answer.length} characters) is in ${output.full_response_path}`,
    );
    expect(answer.startsWith(output.response!.split("\n\n[…")[0]!)).toBe(true);
    expect(output.output_file).toBe(join(project, "out", "report.md"));
    expect(readFileSync(join(project, "out", "report.md"), "utf8")).toBe(answer);
    expect(readFileSync(output.full_response_path!, "utf8")).toBe(answer);
  });

  test.each([
    [429, "rate_limit", 75],
    [401, "auth", 77],
  ])("HTTP %i from the API is diagnosed as %s (exit %i)", async (status, type, exitCode) => {
    const { base, project } = workspace(`http-${status}`);
    const marker = `Q-HTTP-${status}`;
    gemini.server.addRule({ match: marker, status, message: `fake failure ${status}` });
    const run = await runScript("query", ["-p", marker, ...MODEL], { env: gemini.env(base), cwd: project });
    expect(run.exitCode).toBe(exitCode);
    const output = expectShape(QueryResultSchema, run.json);
    expect(output).toMatchObject({ success: false, cached: false, response: null });
    expect(output.diagnostic).toMatchObject({ type, http_status: status, message: `fake failure ${status}` });
    expect(output.diagnostic!.suggestion.length).toBeGreaterThan(20);
    // One attempt only (maxAttempts 1 in the hermetic settings).
    expect(gemini.server.requestsFor(marker)).toHaveLength(1);
  });

  test("an answer Gemini stops itself (its loop detection empties it) is a failure and is not cached", async () => {
    const { base, project } = workspace("loop");
    gemini.server.addRule({ match: "Q-LOOP", text: "the same words again and again. ".repeat(200) });
    const run = await runScript("query", ["-p", "Q-LOOP", ...MODEL], { env: gemini.env(base), cwd: project });
    expect(run.exitCode).toBe(1);
    const output = expectShape(QueryResultSchema, run.json);
    expect(output).toMatchObject({ success: false, response: null, cached: false });
    expect(output.diagnostic).toMatchObject({
      type: "unknown",
      message: expect.stringContaining("empty answer"),
    });
    expect(existsSync(join(base, "projects"))).toBe(false);
  });
});

// Alone, after the others, to keep the machine quiet while it runs.
describe("query: timeout", () => {
  test("--timeout: exit 124 and Gemini's whole process group (a relaunched child too) is killed", async () => {
    const { base, project } = workspace("timeout");
    const marker = `Q-HANG-${process.pid}-${Date.now()}`;
    gemini.server.addRule({ match: marker, hang: true });
    // An empty GEMINI_CLI_NO_RELAUNCH lets Gemini relaunch itself as a child process, as it does by default.
    const env = gemini.env(base, { extra: { GEMINI_CLI_NO_RELAUNCH: "" } });
    let mostSeen = 0;
    const sampler = setInterval(() => {
      mostSeen = Math.max(mostSeen, processesWith(marker).length);
    }, 100);
    const run = await runScript("query", ["-p", marker, ...MODEL, "--timeout", "8"], {
      env,
      cwd: project,
      killAfterMs: 40_000,
    }).finally(() => clearInterval(sampler));
    expect(run.exitCode).toBe(124);
    const output = expectShape(QueryResultSchema, run.json);
    expect(output.success).toBe(false);
    expect(output.diagnostic).toMatchObject({ type: "timeout", gemini_exit_code: null });
    expect(output.error).toBe("timeout: Gemini did not answer within 8 s.");
    // Gemini and its relaunched child were running, and none of them is left.
    expect(mostSeen).toBeGreaterThanOrEqual(2);
    expect(processesWith(marker)).toEqual([]);
    // A request Gemini had sent is left hanging by a client that is gone.
    await expect
      .poll(() => gemini.server.requestsFor(marker).every((request) => request.aborted), { timeout: 5_000 })
      .toBe(true);
    // Nothing was cached.
    expect(existsSync(join(base, "projects"))).toBe(false);
  });
});
