import { mkdirSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type Browser, launchChromium } from "@evals/test-kit/chromium";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildResults,
  caseResult,
  formatCasesTable,
  type ResultsFile,
  readResults,
  renderHtmlReport,
} from "../src/index.js";
import { openPage } from "./browser.js";
import { expectFindTodosComparison, findTodosComparison } from "./find-todos-comparison.js";

/**
 * The HTML report's script shares its formatting with the console (src/format.ts, bundled into the
 * page), and the report shows a with/without comparison under its summary: both checked in real
 * headless Chromium.
 */
const outDir = fileURLToPath(new URL("../test-output/browser/", import.meta.url));

let browser: Browser;
let formattingUrl: string;
let comparisonUrl: string;

/** Costs and durations at the edges where the page's own formatters used to disagree with the console's. */
function costsAndDurations(): ResultsFile {
  const live = (id: string, cost_usd: number | undefined, duration_ms: number) =>
    caseResult({
      id,
      name: id,
      trials: [
        {
          status: "passed",
          scores: [],
          duration_ms,
          origin: "live",
          ...(cost_usd !== undefined ? { cost_usd } : {}),
        },
      ],
    });
  return buildResults([
    live("free", 0, 850),
    live("cheap", 0.0004, 83_000),
    live("dear", 12.5, 4_000_000),
    live("unreported", undefined, 1234),
  ]);
}

function write(name: string, html: string): string {
  const file = `${outDir}${name}`;
  writeFileSync(file, html);
  return pathToFileURL(file).href;
}

beforeAll(async () => {
  mkdirSync(outDir, { recursive: true });
  formattingUrl = write("formatting.html", renderHtmlReport(costsAndDurations()));
  const latest = readResults(resolve(__dirname, "__fixtures__/compare/b.json"));
  comparisonUrl = write(
    "report-with-comparison.html",
    renderHtmlReport(latest, { comparison: findTodosComparison() }),
  );
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

const open = (url: string) => openPage(browser, url);

describe("the HTML report in headless Chromium", () => {
  it("shows costs and durations as the console's case table does", async () => {
    const { page, problems } = await open(formattingUrl);
    const console = formatCasesTable(costsAndDurations().cases).split("\n");
    const cells = async (id: string) => {
      const row = page.locator(`tr.row[data-n="${["free", "cheap", "dear", "unreported"].indexOf(id)}"]`);
      return {
        duration: await row.locator("td").nth(5).textContent(),
        cost: await row.locator("td").nth(6).textContent(),
      };
    };
    const expected: Record<string, { duration: string; cost: string }> = {
      // The page's own formatter said "$0.000" for a run that cost nothing.
      free: { duration: "850ms", cost: "$0" },
      cheap: { duration: "1m23s", cost: "<$0.001" },
      dear: { duration: "1h06m", cost: "$12.50" },
      unreported: { duration: "1.2s", cost: "–" },
    };
    for (const [id, want] of Object.entries(expected)) {
      await expect(cells(id)).resolves.toEqual(want);
      const line = console.find((l) => l.includes(` ${id} `))!;
      expect(line, `console line of ${id}`).toMatch(
        new RegExp(`${escapeRegExp(want.duration)}\\s+${escapeRegExp(want.cost)}$`),
      );
    }
    // The same formatter in the case's timeline.
    await page.locator('tr.row[data-n="0"]').click();
    await expect(page.locator(".tl-head").textContent()).resolves.toContain("cost $0");
    expect(problems).toEqual([]);
    await page.close();
  });

  it("shows a with/without comparison side by side under the summary", async () => {
    const { page, problems } = await open(comparisonUrl);
    // Under the summary cards, above the case table's toolbar.
    const order = await page.evaluate(() =>
      [...document.getElementById("app")!.children].map((el) => el.className || el.id),
    );
    expect(order.indexOf("comparison")).toBe(order.indexOf("cards") + 1);
    expect(order.indexOf("toolbar")).toBeGreaterThan(order.indexOf("comparison"));
    const section = page.locator("section#comparison");
    await expect(section.locator("h2").textContent()).resolves.toBe(
      "Comparison: ignores it <b> against with skill",
    );
    await expect(section.locator(".cmp-run").allTextContents()).resolves.toEqual([
      expect.stringContaining("A: with skill"),
      expect.stringContaining("B: ignores it <b>"),
    ]);

    await expectFindTodosComparison(section);

    // The report itself still works around it.
    await expect(page.locator("tr.row").count()).resolves.toBe(2);
    await page.locator("tr.row", { hasText: "loads the todo-report skill" }).click();
    await page.locator("tr.detail .timeline").waitFor();
    await page.screenshot({ path: `${outDir}report-with-comparison.png`, fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
