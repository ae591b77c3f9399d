// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText (rendered text) is what a reader sees
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Store } from "@evals/store";
import { type Browser, clickThrough, launchChromium } from "@evals/test-kit/chromium";
import { type PostgresServer, startPostgres } from "@evals/test-kit/postgres";
import { startViewer, type Viewer } from "@evals/viewer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, planned, results } from "./fill.js";

const root = mkdtempSync(join(tmpdir(), "evals-viewer-pg-"));
let server: PostgresServer;
let store: Store;
let viewer: Viewer;
let browser: Browser;
const runIds: string[] = [];

/** A team's database: a real PostgreSQL server (--db postgres://…), two runs where a case regressed. */
beforeAll(async () => {
  server = await startPostgres();
  const file = join(root, "case.yaml");
  store = await openStore(server.url);
  for (let run = 1; run <= 2; run++) {
    writeFileSync(file, `id: case\nversion: ${run}\n`);
    const cases = [
      planned({
        id: "edits",
        file,
        status: run === 1 ? "passed" : "failed",
        runFolder: join(root, `run${run}`),
      }),
      planned({ id: "reads", file, status: "passed" }),
    ];
    runIds.push(
      (
        await store.record(
          results(cases, new Date(Date.UTC(2026, 10, 21, run)), "a".repeat(40), "team"),
          "run",
        )
      ).runId,
    );
  }
  viewer = await startViewer({ store });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await viewer?.close();
  await store?.close();
  await server?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe("evals view over a PostgreSQL server", () => {
  it("lists the runs, and compares them down to the first divergent step and the trial's transcript", async () => {
    const page = await browser.context.newPage();
    await page.goto(viewer.url);
    expect(await page.locator("#runs tbody tr").count()).toBe(2);
    expect(await page.locator("#runs").innerText()).toContain("team");
    await page.goto(new URL(`/compare?a=${runIds[0]}&b=${runIds[1]}`, viewer.url).href);
    const row = await page.locator("#flips tr", { hasText: "case edits" }).innerText();
    expect(row).toContain('step 1: B called Edit {"file_path":"a.ts"}, A Read {"file_path":"a.ts"}');
    await clickThrough(page.locator("#flips").getByText("B's trial"));
    expect(await page.locator("#transcript").innerText()).toMatch(/tool_call Edit/);
    await page.close();
  });
});
