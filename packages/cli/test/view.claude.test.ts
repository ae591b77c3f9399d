import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { get } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { claudeAvailable } from "@evals/claude-code";
import { afterAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/exit-codes.js";

const claudeBin = resolve(__dirname, "../../../node_modules/.bin/claude");
const cliJs = resolve(__dirname, "../dist/cli.js");
const findTodos = (path: string) =>
  fileURLToPath(new URL(`../../../examples/find-todos/${path}`, import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "harness-view-"));
/** Every `evals view` started: one a failed assertion left running is stopped at the end. */
const views: ChildProcess[] = [];
afterAll(() => {
  for (const view of views) if (view.exitCode === null && view.signalCode === null) view.kill("SIGKILL");
  rmSync(scratch, { recursive: true, force: true });
});
const env = { ...process.env, EVALS_CLAUDE_BIN: claudeBin, EVALS_OUTPUT_DIR: scratch, FORCE_COLOR: "0" };

/** `evals view` started from the built binary; resolves once it printed its URL. */
function startView(args: string[]): Promise<{ child: ChildProcess; url: string; out: () => string }> {
  const child = spawn(process.execPath, [cliJs, "view", ...args], { cwd: scratch, env });
  views.push(child);
  let out = "";
  child.stdout.on("data", (chunk) => {
    out += chunk;
  });
  child.stderr.on("data", (chunk) => {
    out += chunk;
  });
  return new Promise((resolveStart, reject) => {
    child.once("exit", (code) => reject(new Error(`evals view exited ${code}: ${out}`)));
    const timer = setInterval(() => {
      const url = /at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out)?.[1];
      if (!url) return;
      clearInterval(timer);
      child.removeAllListeners("exit");
      resolveStart({ child, url, out: () => out });
    }, 50);
  });
}

/** A page over a connection of its own. */
const freshGet = (url: string) =>
  new Promise<string>((done, fail) => {
    get(url, { agent: false }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => {
        body += chunk;
      });
      response.on("end", () => done(body));
    }).on("error", fail);
  });

const exited = (child: ChildProcess) =>
  new Promise<number | null>((done) => child.once("exit", (code) => done(code)));

describe.skipIf(!claudeAvailable({ claudeBin }).available)("evals view, through the binary", () => {
  const db = join(scratch, "db");

  const replay = () =>
    spawnSync(
      process.execPath,
      [
        cliJs,
        ...["run", findTodos("cases/find-todos.yaml"), "--cassettes", findTodos("cassettes")],
        // The example's recordings were made under its describeCases suite.
        ...["--suite", "find-todos", "--mode", "strict", "--out", "results", "--db", db],
      ],
      { cwd: scratch, encoding: "utf8", timeout: 300_000, env },
    );

  it("serves a real replayed run (its cases, each trial's recording, a trial's transcript from its run folder), records a run made while it is up, then stops on SIGINT", async () => {
    const run = replay();
    expect(run.status, run.stdout + run.stderr).toBe(EXIT.passed);

    const { child, url, out } = await startView(["--db", db, "--port", "0"]);
    expect(out()).toContain(`evals view: serving ${db} at ${url}`);
    const runs = await (await fetch(url)).text();
    const runLink = /href="(\/run\?id=[^"]+)"/.exec(runs)?.[1];
    expect(runLink, runs).toBeDefined();
    const runPage = await (await fetch(new URL(runLink!.replace(/&amp;/g, "&"), url))).text();
    expect(runPage).toContain("find-todos");
    const caseLink = /href="(\/case\?[^"]+)"/.exec(runPage)?.[1];
    const casePage = await (await fetch(new URL(caseLink!.replace(/&amp;/g, "&"), url))).text();
    const trialLink = /href="(\/trial\?[^"]+)"/.exec(casePage)?.[1];
    const trialPage = await (await fetch(new URL(trialLink!.replace(/&amp;/g, "&"), url))).text();
    // The transcript of the real run, read from the trial's run folder.
    expect(trialPage).toContain("From the run folder");
    expect(trialPage).toMatch(/tool_call <code>(Grep|Glob|Read|Bash)<\/code>/);
    // Which recording each trial replayed.
    const recording = `${findTodos("cassettes")}/find-todos/`;
    expect(casePage).toContain(`replayed <code>${recording}`);
    expect(trialPage).toMatch(
      /from <code class="recording">[^<]+\/find-todos\/[^<]+\.recording\.json<\/code>/,
    );

    // A run while the viewer is up is recorded (the viewer holds the database only per request)...
    const second = replay();
    expect(second.status, second.stdout + second.stderr).toBe(EXIT.passed);
    expect(second.stderr).not.toContain("was not recorded");
    // ...and the viewer shows it (on a fresh connection: fetch's kept-alive one timed out meanwhile).
    const both = await freshGet(url);
    const ids = [...new Set([...both.matchAll(/href="\/run\?id=([^"&]+)"/g)].map((m) => m[1]!))];
    expect(ids).toHaveLength(2);
    // Both runs wrote results/report.html: it is the newer run's now, not the first's (the chart, first
    // on the page, has the oldest run left).
    const [older, newer] = ids;
    expect(await freshGet(`${url}run?id=${newer}`)).toContain(`href="/report?id=${newer}"`);
    const olderPage = await freshGet(`${url}run?id=${older}`);
    expect(olderPage).not.toContain(`href="/report?id=${older}"`);
    expect(olderPage).toContain(`now holds a later run's: <a href="/run?id=${newer}">`);

    const stopped = exited(child);
    child.kill("SIGINT");
    expect(await stopped).toBe(EXIT.passed);
    expect(out()).toContain("evals view: stopped (SIGINT)");
    await expect(fetch(url)).rejects.toThrow();
  }, 600_000);

  it("exits 2 with a clear message when the port is taken or the database cannot be opened", async () => {
    const taken = createServer();
    await new Promise<void>((done) => taken.listen(0, "127.0.0.1", () => done()));
    const port = (taken.address() as { port: number }).port;
    try {
      const busy = spawnSync(process.execPath, [cliJs, "view", "--db", db, "--port", String(port)], {
        cwd: scratch,
        encoding: "utf8",
        timeout: 120_000,
        env,
      });
      expect(busy.status).toBe(EXIT.badInput);
      expect(busy.stderr).toContain(`evals view: port ${port} on 127.0.0.1 cannot be used (EADDRINUSE)`);
    } finally {
      taken.close();
    }
    const missing = join(scratch, "no-such-db");
    const none = spawnSync(process.execPath, [cliJs, "view", "--db", missing], {
      cwd: scratch,
      encoding: "utf8",
      env,
    });
    expect(none.status).toBe(EXIT.badInput);
    expect(none.stderr).toContain(`evals view: no results database in ${missing}`);
    const server = spawnSync(
      process.execPath,
      [cliJs, "view", "--db", "postgres://nobody:x@127.0.0.1:1/none"],
      {
        cwd: scratch,
        encoding: "utf8",
        timeout: 60_000,
        env,
      },
    );
    expect(server.status).toBe(EXIT.badInput);
    expect(server.stderr).toMatch(/evals view: the results database .* cannot be opened: /);
  });
});
