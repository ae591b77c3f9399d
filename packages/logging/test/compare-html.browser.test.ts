import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type Browser, launchChromium } from "@evals/test-kit/chromium";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderComparisonHtml } from "../src/index.js";
import { openPage } from "./browser.js";
import { expectFindTodosComparison, findTodosComparison } from "./find-todos-comparison.js";

/**
 * The comparison page of the two real find-todos results files (see compare-results.test.ts), opened
 * in real headless Chromium.
 */
const outDir = fileURLToPath(new URL("../test-output/browser/", import.meta.url));

let browser: Browser;
let url: string;

beforeAll(async () => {
  mkdirSync(outDir, { recursive: true });
  const file = `${outDir}comparison.html`;
  writeFileSync(file, renderComparisonHtml(findTodosComparison()));
  url = pathToFileURL(file).href;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

describe("the comparison page in headless Chromium", () => {
  it("shows A and B side by side per case and overall, with the difference, verdict and deltas", async () => {
    const { page, problems } = await openPage(browser, url, { ready: false });
    await expect(page.title()).resolves.toBe("with skill vs ignores it <b> · find-todos");
    await expectFindTodosComparison(page);
    await page.screenshot({ path: `${outDir}comparison.png`, fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });
});
