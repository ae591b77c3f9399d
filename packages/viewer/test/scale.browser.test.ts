// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText (rendered text) is what a reader sees
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Store } from "@evals/store";
import { type Browser, clickThrough, launchChromium } from "@evals/test-kit/chromium";
import { startViewer, type Viewer } from "@evals/viewer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, planned, results } from "./fill.js";

const RUNS = 100;
const CASES = 1000;
const root = mkdtempSync(join(tmpdir(), "evals-viewer-scale-"));
let store: Store;
let viewer: Viewer;
let browser: Browser;

/** 100 runs of 1,000 cases each (one in ten failing, moving with the run), through the store's write API. */
beforeAll(async () => {
  const file = join(root, "case.yaml");
  writeFileSync(file, "id: case\n");
  store = await openStore(join(root, "db"));
  const started = Date.now();
  for (let run = 0; run < RUNS; run++) {
    const cases = Array.from({ length: CASES }, (_, n) =>
      planned({ id: `case-${n}`, file, status: (n + run) % 10 === 3 ? "failed" : "passed" }),
    );
    await store.record(
      results(cases, new Date(Date.UTC(2026, 9, 1) + run * 3_600_000), `${run % 10}`.repeat(40)),
      "run",
    );
  }
  console.log(`filled ${RUNS} runs x ${CASES} cases in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  viewer = await startViewer({ store });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await viewer?.close();
  await store?.close();
  rmSync(root, { recursive: true, force: true });
});

async function load(path: string) {
  const page = await browser.context.newPage();
  const start = performance.now();
  const response = await page.goto(new URL(path, viewer.url).href);
  const ms = performance.now() - start;
  console.log(`${path}: loaded in ${ms.toFixed(0)} ms (${RUNS} runs x ${CASES} cases)`);
  return { page, status: response?.status() };
}

describe(`evals view over ${RUNS} runs x ${CASES} cases`, () => {
  it("loads the first page of runs: one page of 50, the chart, the pager", async () => {
    const { page, status } = await load("/");
    expect(status).toBe(200);
    expect(await page.locator("#runs tbody tr").count()).toBe(50);
    expect(await page.locator("svg circle").count()).toBe(50);
    expect(await page.locator("nav.pages").first().innerText()).toContain(`Page 1 of 2 (${RUNS})`);
    await clickThrough(page.locator("#runs tbody tr").first().locator("a"));
    expect(await page.locator("#cases tbody tr").count()).toBe(100);
    expect(await page.locator("nav.pages").first().innerText()).toContain(`Page 1 of 10 (${CASES})`);
    await page.close();
  });

  it("loads a case's page: its last 50 runs with the band, every trial linked", async () => {
    const { page, status } = await load("/case?suite=viewer&id=case-500");
    expect(status).toBe(200);
    expect(await page.locator("svg circle").count()).toBe(50);
    expect(await page.locator("#trials tbody tr").count()).toBe(50);
    expect(await page.locator("main > p").first().innerText()).toContain(
      "45/50 trials passed over its last 50 run(s)",
    );
    await page.close();
  });
});
