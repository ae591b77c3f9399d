import { mkdirSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareResults, readResults, renderComparisonHtml } from "../src/index.js";
import { type Browser, launchChromium } from "./browser.js";

/**
 * The comparison page of the two real find-todos results files (see compare-results.test.ts), opened
 * in real headless Chromium.
 */
const outDir = fileURLToPath(new URL("../test-output/browser/", import.meta.url));
const fixture = (name: string) => resolve(__dirname, "__fixtures__/compare", name);

let browser: Browser;
let url: string;

beforeAll(async () => {
  mkdirSync(outDir, { recursive: true });
  const comparison = compareResults(readResults(fixture("a.json")), readResults(fixture("b.json")), {
    labels: ["with skill", "ignores it <b>"],
  });
  const file = `${outDir}comparison.html`;
  writeFileSync(file, renderComparisonHtml(comparison));
  url = pathToFileURL(file).href;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

describe("the comparison page in headless Chromium", () => {
  it("shows A and B side by side per case and overall, with the difference, verdict and deltas", async () => {
    const page = await browser.context.newPage();
    const problems: string[] = [];
    page.on("console", (message) => problems.push(`${message.type()}: ${message.text()}`));
    page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
    page.on("request", (request) => {
      if (!request.url().startsWith("file:")) problems.push(`request: ${request.url()}`);
    });
    await page.goto(url);
    await expect(page.title()).resolves.toBe("with skill vs ignores it <b> · find-todos");
    // The label is text, not markup.
    await expect(page.locator("thead th").nth(2).textContent()).resolves.toBe("ignores it <b>");
    await expect(page.locator("tr.cmp-case").count()).resolves.toBe(2);

    const skill = page.locator("tr.cmp-case", { hasText: "loads the todo-report skill" });
    await expect(skill.getAttribute("data-verdict")).resolves.toBe("worse");
    await expect(skill.locator("td.cmp-diff").textContent()).resolves.toBe("−100% [−100…−21]");
    await expect(skill.locator('td[data-side="A"] .cmp-rate').textContent()).resolves.toBe("3/3 · 100%");
    await expect(skill.locator('td[data-side="B"] .cmp-rate').textContent()).resolves.toBe("0/3 · 0%");
    await expect(skill.locator("td.num").allTextContents()).resolves.toEqual([
      "−2.0",
      "−1.0",
      "−13,755",
      "−1.4s",
    ]);

    // Side by side: A's bar is full, B's empty, each with its interval drawn where it lies.
    const box = async (side: "A" | "B", part: string) =>
      (await skill.locator(`td[data-side="${side}"] ${part}`).boundingBox())!;
    const barA = await box("A", ".cmp-bar");
    const barB = await box("B", ".cmp-bar");
    expect(barB.x).toBeGreaterThan(barA.x + barA.width);
    expect((await box("A", ".cmp-fill")).width).toBeCloseTo(barA.width, 0);
    expect((await box("B", ".cmp-fill")).width).toBe(0);
    const ciB = await box("B", ".cmp-ci");
    expect(ciB.x).toBeCloseTo(barB.x, 0);
    expect(ciB.width / barB.width).toBeCloseTo(0.5615, 2); // Wilson 0/3: [0, 0.5615]
    const ciA = await box("A", ".cmp-ci");
    expect((ciA.x - barA.x) / barA.width).toBeCloseTo(0.4385, 2); // Wilson 3/3: [0.4385, 1]

    const bash = page.locator("tr.cmp-case", { hasText: "runs grep in Bash" });
    await expect(bash.locator(".cmp-verdict").textContent()).resolves.toBe("within noise");
    const overall = page.locator("tfoot tr.cmp-overall");
    await expect(overall.locator(".cmp-name").textContent()).resolves.toBe("overall (2 cases)");
    await expect(overall.locator('td[data-side="B"] .cmp-rate').textContent()).resolves.toBe("3/6 · 50%");
    await expect(page.locator(".cmp-verdict.worse").first().isVisible()).resolves.toBe(true);
    await page.screenshot({ path: `${outDir}comparison.png`, fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });
});
