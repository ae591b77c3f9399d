import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Store } from "@evals/store";
import { startViewer, type Viewer } from "@evals/viewer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, planned, results } from "./fill.js";

/**
 * Requests people (and other web pages) really send to `evals view`, over plain HTTP: numbers out of
 * any range, a report file that cannot be read, one results folder whose report.html every run
 * rewrites, a Host that is not the viewer's.
 */
const root = mkdtempSync(join(tmpdir(), "evals-viewer-requests-"));
let store: Store;
let viewer: Viewer;
const runIds: string[] = [];

beforeAll(async () => {
  mkdirSync(join(root, "cases"), { recursive: true });
  const file = join(root, "cases", "a.yaml");
  writeFileSync(file, "id: a\n");
  store = await openStore(join(root, "db"));
  // Runs 1 and 2 were written to the same results folder, as two `evals run`s in a row are: run 2
  // rewrote results/report.html. Run 3's report is a folder (nothing a browser can be sent).
  const shared = join(root, "results", "report.html");
  mkdirSync(join(root, "results"), { recursive: true });
  const folderReport = join(root, "not-a-file.html");
  mkdirSync(folderReport);
  for (const [run, html] of [shared, shared, folderReport].entries()) {
    if (html === shared) writeFileSync(shared, `<!doctype html><h1>the report of run ${run + 1}</h1>`);
    const recorded = await store.record(
      results(
        [
          planned({ id: "a", file, status: "passed" }),
          // An agent that errored (an API error, a timeout) in run 3.
          ...(run === 2 ? [planned({ id: "b", file, status: "error" })] : []),
        ],
        new Date(Date.UTC(2026, 10, 20, run)),
        "a".repeat(40),
      ),
      "run",
      { dir: join(root, "results"), html },
    );
    runIds.push(recorded.runId);
  }
  viewer = await startViewer({ store });
});

afterAll(async () => {
  await viewer?.close();
  await store?.close();
  rmSync(root, { recursive: true, force: true });
});

/** GET `path` with `headers` (a Host of our choosing, which fetch does not send). */
function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    request(new URL(path, viewer.url), { headers, agent: false }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => {
        body += chunk;
      });
      response.on("end", () => done({ status: response.statusCode ?? 0, body }));
    })
      .on("error", fail)
      .end();
  });
}

describe("evals view's answers to odd requests", () => {
  it("answers numbers beyond any trial or page as not found or an empty page, never a database error", async () => {
    for (const path of [
      `/trial?run=${runIds[0]}&pos=99999999999&trial=0`,
      `/trial?run=${runIds[0]}&pos=0&trial=1e100`,
      `/trial?run=${runIds[0]}&pos=-1&trial=0`,
    ]) {
      const { status, body } = await get(path);
      expect(status, path).toBe(404);
      expect(body, path).toContain("is not in this database");
    }
    for (const path of ["/?page=99999999999999999999", `/run?id=${runIds[0]}&page=99999999999999999999`]) {
      const { status, body } = await get(path);
      expect(status, path).toBe(200);
      expect(body, path).not.toContain(`<pre class="error">`);
    }
  });

  it("answers a NUL in any query value (PostgreSQL's text holds none) as not found, never a database error", async () => {
    for (const path of [
      "/run?id=%00",
      "/case?suite=viewer&id=a%00",
      "/trial?run=%00&pos=0&trial=0",
      "/report?id=%00",
    ]) {
      const { status, body } = await get(path);
      expect(status, path).toBe(404);
      expect(body, path).not.toContain(`<pre class="error">`);
    }
  });

  it("serves a run's report.html only while it is that run's: a later run that rewrote the file has it", async () => {
    const [first, second] = runIds;
    const own = await get(`/report?id=${second}`);
    expect(own.status).toBe(200);
    expect(own.body).toContain("the report of run 2");
    const older = await get(`/report?id=${first}`);
    expect(older.status).toBe(404);
    expect(older.body).not.toContain("the report of run 2");
    const page = await get(`/run?id=${first}`);
    expect(page.body).not.toContain(`href="/report?id=${first}"`);
    expect(page.body).toContain(`now holds a later run's: <a href="/run?id=${second}">`);
  });

  it("answers a report that cannot be read (a folder in its place) with a page saying so, and keeps serving", async () => {
    const { status, body } = await get(`/report?id=${runIds[2]}`);
    expect(status).toBe(404);
    expect(body).toContain("cannot be read");
    expect((await get("/")).status).toBe(200);
  });

  it("lists a run's errored cases among the failed and errored ones", async () => {
    const { body } = await get(`/run?id=${runIds[2]}&only=not-passed`);
    expect(body).toContain("Showing the failed and errored cases");
    expect(body).toContain("case b");
    expect(body).not.toContain("case a");
  });

  it("refuses a request for another host (a page elsewhere reaching it by DNS rebinding)", async () => {
    const port = new URL(viewer.url).port;
    const rebound = await get("/", { host: `attacker.example:${port}` });
    expect(rebound.status).toBe(403);
    expect(rebound.body).not.toContain(runIds[0]!.slice(0, 12));
    expect((await get("/", { host: `localhost:${port}` })).status).toBe(200);
    expect((await get("/", { host: `127.0.0.1:${port}` })).status).toBe(200);
  });
});
