// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText (rendered text) is what a reader sees
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Store } from "@evals/store";
import { type Browser, launchChromium } from "@evals/test-kit/chromium";
import { startViewer, type Viewer } from "@evals/viewer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, planned, results } from "./fill.js";

/**
 * A failed case whose stored violation message is 20 MB, and whose case and trial errors are 1 MB:
 * markup, entities' characters and characters outside the BMP (surrogate pairs) all the way, so
 * wherever a page cuts, a cut inside an entity or a pair would show.
 */
const root = mkdtempSync(join(tmpdir(), "evals-viewer-long-"));
const UNIT = `<b>&amp; 😀 "x" 'y' `;
const long = (bytes: number, tag: string) => tag + UNIT.repeat(Math.ceil(bytes / Buffer.byteLength(UNIT)));
const VIOLATION = long(20_000_000, "violation ");
const CASE_ERROR = long(1_000_000, "case error ");
const TRIAL_ERROR = long(1_000_000, "trial error ");
let store: Store;
let viewer: Viewer;
let browser: Browser;
let runId: string;

beforeAll(async () => {
  mkdirSync(join(root, "cases"), { recursive: true });
  const file = join(root, "cases", "a.yaml");
  writeFileSync(file, "id: a\n");
  store = await openStore(join(root, "db"));
  const failed = planned({ id: "a", file, status: "failed" });
  failed.violations[0]!.message = VIOLATION;
  failed.error = CASE_ERROR;
  failed.trials[0]!.error = TRIAL_ERROR;
  runId = (await store.record(results([failed], new Date(Date.UTC(2026, 10, 20)), "a".repeat(40)), "run"))
    .runId;
  viewer = await startViewer({ store });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await viewer?.close();
  await store?.close();
  rmSync(root, { recursive: true, force: true });
});

async function get(path: string): Promise<{ status: number; type: string | null; body: string }> {
  const response = await fetch(new URL(path, viewer.url));
  return { status: response.status, type: response.headers.get("content-type"), body: await response.text() };
}

/** The text of `shown` up to its "… (N MB more" note, which must be a prefix of `whole` of a few KB. */
function expectPrefixOf(shown: string, whole: string, tag: string): void {
  const at = shown.indexOf(tag);
  expect(at, `${tag} shown`).toBeGreaterThanOrEqual(0);
  const end = shown.indexOf("… (", at);
  expect(end, `${tag} is cut`).toBeGreaterThan(at);
  const prefix = shown.slice(at, end);
  expect(prefix.length).toBeGreaterThan(1000);
  expect(prefix.length).toBeLessThan(20_000);
  expect(whole.startsWith(prefix), `${tag} shown as its own first characters`).toBe(true);
  expect(prefix).not.toContain("\uFFFD");
}

describe("evals view's pages of a run with a 20 MB message", () => {
  it("keep the run, case and trial pages small", async () => {
    for (const path of [`/run?id=${runId}`, "/case?suite=viewer&id=a", `/trial?run=${runId}&pos=0&trial=0`]) {
      const { status, body } = await get(path);
      expect(status, path).toBe(200);
      expect(body.length, path).toBeLessThan(100_000);
      expect(/… \(20\.0 MB more: <a href="\/message\?/.test(body), `${path} says 20 MB were cut`).toBe(true);
    }
  });

  it("show each message's first characters, escaped, and how much was cut", async () => {
    const page = await browser.context.newPage();
    await page.goto(new URL(`/run?id=${runId}`, viewer.url).href);
    const cases = await page.locator("#cases").innerText();
    expectPrefixOf(cases, VIOLATION, "violation ");
    expectPrefixOf(cases, CASE_ERROR, "case error ");
    expect(cases).toMatch(/case error [\s\S]*… \(99\d\.\d KB more/);
    expect(await page.locator("#cases b").count()).toBe(0);
    await page.goto(new URL(`/trial?run=${runId}&pos=0&trial=0`, viewer.url).href);
    const trial = await page.locator("main").innerText();
    expectPrefixOf(trial, VIOLATION, "violation ");
    expectPrefixOf(trial, TRIAL_ERROR, "trial error ");
    await page.close();
  });

  it("link each cut message to all of it, served as plain text", async () => {
    const page = await browser.context.newPage();
    await page.goto(new URL(`/trial?run=${runId}&pos=0&trial=0`, viewer.url).href);
    const links = page.getByText("whole message");
    expect(await links.count()).toBe(2);
    const [trialError, violation] = await links.evaluateAll((all) => all.map((a) => a.getAttribute("href")!));
    await page.close();
    for (const [path, whole] of [
      [trialError!, TRIAL_ERROR],
      [violation!, VIOLATION],
      [`/message?run=${runId}&pos=0`, CASE_ERROR],
    ] as const) {
      const served = await get(path);
      expect(served.status, path).toBe(200);
      expect(served.type, path).toBe("text/plain; charset=utf-8");
      expect(served.body === whole, `${path} serves the whole message`).toBe(true);
    }
    for (const path of [`/message?run=${runId}&pos=0&violation=7`, `/message?run=${runId}&pos=0&trial=x`])
      expect((await get(path)).status, path).toBe(404);
  });
});
