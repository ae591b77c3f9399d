import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { finalResult } from "@evals/core";
import { type Browser, launchChromium } from "@evals/test-kit/chromium";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildResults, caseResult, renderHtmlReport } from "../src/index.js";
import { openPage } from "./browser.js";
import { demoCases, forbiddenToolCase, HOSTILE } from "./demo-results.js";
import { apiErrorRun, fixtureRun } from "./fixtures.js";
import { manyCases } from "./many-cases.js";

const outDir = fileURLToPath(new URL("../test-output/browser/", import.meta.url));
const docsShot = fileURLToPath(new URL("../docs/report.png", import.meta.url));

let browser: Browser;
let demoUrl: string;
let replayUrl: string;

/**
 * The real multi-tool run, replayed (as a wire replay reports it: origin "replay", the cost its
 * recording's), graded by a case that expects its stop-on-failure violation: the case passed.
 */
function replayedCaseReport(): string {
  const run = fixtureRun("multi-tool");
  const write = run.events.find((event) => event.type === "tool_call" && event.name === "Write");
  const result = caseResult({
    id: "presses-on",
    name: "presses on after a failed step, as the case expects",
    trials: [
      {
        status: "passed",
        scores: [{ scorer: "stop-on-failure", score: 1, passed: true }],
        violations: [
          {
            rule: "stop-on-failure",
            type: "unrequested-fix",
            severity: "error",
            message: 'Write /home/dev/project/out.txt after Bash "echo BLOCKME" failed',
            expected: true,
            scorer: "stop-on-failure",
            pointer: { event_index: write?.index ?? 0, agent: "main" },
          },
        ],
        duration_ms: 1789,
        cost_usd: finalResult(run)?.total_cost_usd,
        run_id: "fixture-multi-tool",
        origin: "replay",
        run,
      },
    ],
  });
  // And a real run that ended in an API error (its result line says subtype "success").
  const apiError = caseResult({
    id: "api-error",
    name: "ends in an API error",
    trials: [{ status: "failed", scores: [], run: apiErrorRun(), origin: "live" }],
  });
  const file = `${outDir}replayed.html`;
  writeFileSync(
    file,
    renderHtmlReport(buildResults([result, apiError], { meta: { git_commit: "0".repeat(40) } })),
  );
  return pathToFileURL(file).href;
}

beforeAll(async () => {
  mkdirSync(outDir, { recursive: true });
  const results = buildResults(demoCases(), {
    suite: "gemini-offloader evals",
    startedAt: "2026-11-21T10:00:00Z",
    finishedAt: "2026-11-21T10:01:12Z",
    meta: { git_commit: "4f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39", git_branch: "main", git_dirty: false },
  });
  const file = `${outDir}demo.html`;
  writeFileSync(file, renderHtmlReport(results));
  demoUrl = pathToFileURL(file).href;
  replayUrl = replayedCaseReport();
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

const open = (url: string) => openPage(browser, url);

const rowNamed = (page: Page, name: string) => page.locator("tr.row", { hasText: name });

describe("the HTML report in headless Chromium", () => {
  it("renders every case with its verdict, failures first, without console errors", async () => {
    const { page, problems } = await open(demoUrl);
    await expect(page.locator("tr.row").count()).resolves.toBe(7);
    const statuses = await page
      .locator("tr.row")
      .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-status")));
    expect(statuses.slice(0, 1)).toEqual(["error"]);
    expect(statuses.filter((s) => s === "failed")).toHaveLength(3);
    await expect(page.locator("h1").textContent()).resolves.toBe("gemini-offloader evals");
    await expect(page.locator(".cards").textContent()).resolves.toContain("2/6");
    expect(problems).toEqual([]);
    await page.close();
  });

  it("draws a case's timeline grouped by agent, with the subagent nested under its Agent call", async () => {
    const { page, problems } = await open(demoUrl);
    await rowNamed(page, "delegates the echo to a subagent").click();
    const detail = page.locator("tr.detail");
    await detail.locator(".timeline").waitFor();
    const main = detail.locator(".agent.d0");
    await expect(main.locator(".agent-head .who").first().textContent()).resolves.toBe("main agent");
    const child = main.locator(".agent.d1");
    await expect(child.locator(".who").textContent()).resolves.toBe("general-purpose");
    await expect(child.locator(".call .sum").allTextContents()).resolves.toEqual(["echo from-child"]);
    await expect(child.locator(".agent-prompt").textContent()).resolves.toContain("SUBTASK-MARKER");
    // Opening a tool call shows its input and output.
    await child.locator(".call").click();
    await expect(child.locator(".io pre").first().textContent()).resolves.toContain(
      '"command": "echo from-child"',
    );
    await expect(child.locator(".io pre").nth(1).textContent()).resolves.toBe("from-child");
    expect(problems).toEqual([]);
    await page.close();
  });

  it("highlights violations where they happened and jumps to them", async () => {
    const { page, problems } = await open(demoUrl);
    await rowNamed(page, "stops after a failed step").click();
    const detail = page.locator("tr.detail");
    await detail.locator(".timeline").waitFor();
    await expect(detail.locator(".vitem").count()).resolves.toBe(2);
    const errorItem = detail.locator(".timeline .item.violated:not(.only-warning)");
    await expect(errorItem.count()).resolves.toBe(1);
    await expect(errorItem.locator(".sum").first().textContent()).resolves.toContain("does-not-exist.txt");
    await expect(errorItem.locator(".vbadge").textContent()).resolves.toContain(
      "stop-on-failure/continued-after-failure",
    );
    const warningItem = detail.locator(".timeline .item.violated.only-warning");
    await expect(warningItem.locator(".tool").first().textContent()).resolves.toContain("Write");
    await expect(warningItem.locator(".label-denied").textContent()).resolves.toBe("denied");
    await detail.locator(".vitem.error button").click();
    await expect(errorItem.getAttribute("class")).resolves.toContain("flash");
    expect(problems).toEqual([]);
    await page.close();
  });

  it("shows trial statistics and each trial's own timeline", async () => {
    const { page, problems } = await open(demoUrl);
    await rowNamed(page, "offloads research to Gemini").click();
    const detail = page.locator("tr.detail");
    await detail.locator(".timeline").waitFor();
    await expect(detail.locator(".tab").count()).resolves.toBe(3);
    // The failing trial opens first, with its violation on the Bash call.
    await expect(detail.locator(".tab.on").textContent()).resolves.toContain("Trial 2");
    await expect(detail.locator(".kv").textContent()).resolves.toContain("2 of 3");
    await expect(detail.locator(".kv").textContent()).resolves.toContain("pass@3");
    await expect(detail.locator(".item.violated .tool").first().textContent()).resolves.toBe("Basherror");
    await detail.locator(".tab", { hasText: "Trial 1" }).click();
    await expect(detail.locator(".item.violated").count()).resolves.toBe(0);
    await expect(detail.locator(".agent.d1 .who").textContent()).resolves.toBe("Explore");
    expect(problems).toEqual([]);
    await page.close();
  });

  it("filters by text, status, tag and violations", async () => {
    const { page, problems } = await open(demoUrl);
    const visible = () => page.locator("tr.row").count();
    await page.fill("input.search", "subagent");
    await expect(visible()).resolves.toBe(1);
    await page.fill("input.search", "");
    await page.click('.seg button[data-status="passed"]');
    await expect(visible()).resolves.toBe(2);
    await page.click('.seg button[data-status="all"]');
    await page.selectOption('select[aria-label="Tag"]', "safety");
    await expect(visible()).resolves.toBe(3);
    await page.selectOption('select[aria-label="Tag"]', "");
    await page.selectOption('select[aria-label="Violations"]', "warning");
    await expect(page.locator("tr.row .case-name").allTextContents()).resolves.toEqual([
      "stops after a failed step",
    ]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("shows hostile text as text: nothing from the data runs or breaks the page", async () => {
    const { page, problems } = await open(demoUrl);
    const row = rowNamed(page, "renders hostile text safely");
    await expect(row.locator(".case-name").textContent()).resolves.toBe(
      `renders hostile text safely ${HOSTILE}`,
    );
    await row.click();
    const detail = page.locator("tr.detail");
    await detail.locator(".timeline").waitFor();
    await detail.locator(".call").first().click();
    await expect(detail.locator(".io pre").nth(1).textContent()).resolves.toBe(HOSTILE);
    await expect(detail.locator(".error-box").first().textContent()).resolves.toContain(HOSTILE);
    await expect(
      page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned),
    ).resolves.toBeUndefined();
    await expect(page.locator("img").count()).resolves.toBe(0);
    await expect(page.locator("script").count()).resolves.toBe(1 + 1 + 7);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("says when a trial's run was not kept, and when no trial ran", async () => {
    const { page, problems } = await open(demoUrl);
    await rowNamed(page, "asks before deleting files").click();
    await expect(page.locator("tr.detail .error-box").first().textContent()).resolves.toContain(
      "claude exited with code 1",
    );
    await expect(page.locator("tr.detail .timeline .empty").textContent()).resolves.toBe(
      "This trial's run was not kept in the report.",
    );
    await rowNamed(page, "explains how to install Gemini").click();
    await expect(page.locator("tr.detail").nth(1).textContent()).resolves.toContain("No trials ran.");
    expect(problems).toEqual([]);
    await page.close();
  });

  it("opens the case named in the address (#case=<id>)", async () => {
    const { page, problems } = await open(`${demoUrl}#case=delegates-echo`);
    await expect(page.locator("tr.row.open .case-name").textContent()).resolves.toBe(
      "delegates the echo to a subagent",
    );
    await expect(page.locator("tr.detail .agent.d1").count()).resolves.toBe(1);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("takes a screenshot of a flaky case's trials and nested timeline", async () => {
    // The showcase leaves out the hostile-text case (it is there to be ugly).
    const showcase = buildResults(
      demoCases().filter((c) => c.id !== "hostile-input"),
      {
        suite: "gemini-offloader evals",
        startedAt: "2026-11-21T10:00:00Z",
        finishedAt: "2026-11-21T10:01:12Z",
        meta: {
          git_commit: "4f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a39",
          git_branch: "main",
          git_dirty: false,
        },
      },
    );
    writeFileSync(`${outDir}showcase.html`, renderHtmlReport(showcase));
    const { page, problems } = await open(pathToFileURL(`${outDir}showcase.html`).href);
    await page.setViewportSize({ width: 1360, height: 1640 });
    await rowNamed(page, "offloads research to Gemini").click();
    await page.locator("tr.detail .timeline").waitFor();
    await page.mouse.move(0, 0);
    const file = `${outDir}report.png`;
    await page.screenshot({ path: file, fullPage: false });
    if (process.env.UPDATE_SCREENSHOT === "1") copyFileSync(file, docsShot);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("stays usable with 1,000 cases of 50 tool calls", async () => {
    const results = buildResults(manyCases(1000, 50), { suite: "large suite" });
    const file = `${outDir}large.html`;
    writeFileSync(file, renderHtmlReport(results));
    const started = Date.now();
    const { page, problems } = await open(pathToFileURL(file).href);
    const loadMs = Date.now() - started;
    await expect(page.locator("tr.row").count()).resolves.toBe(1000);
    // Only the opened case's timeline is drawn.
    await expect(page.locator(".call").count()).resolves.toBe(0);
    await page.locator("tr.row").nth(500).click();
    await expect(page.locator("tr.detail .call").count()).resolves.toBe(50);
    console.log(`1,000-case report opened in ${loadMs} ms`);
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe("a replayed case whose expected violation occurred, in headless Chromium", () => {
  it("shows the violation as expected and the run as replayed, with no cost spent", async () => {
    const { page, problems } = await open(replayUrl);
    const row = rowNamed(page, "presses on after a failed step");
    await expect(row.getAttribute("data-status")).resolves.toBe("passed");
    await expect(row.locator(".sev").allTextContents()).resolves.toEqual(["1 expected"]);
    await expect(row.locator("td").last().textContent()).resolves.toBe("replayed");
    const cards = (await page.locator(".cards").textContent()) ?? "";
    expect(cards).toContain("0 errors");
    expect(cards).toContain("1 expected");
    expect(cards).toContain("replayed: nothing was spent");
    expect(cards).not.toContain("$");
    const chips = (await page.locator(".meta").textContent()) ?? "";
    expect(chips).toContain("replayed 1 of 2 trials");
    expect(chips).toMatch(/recorded model claude-/);
    expect(chips).not.toMatch(/(^|[^d] )model claude-/);

    await row.click();
    const detail = page.locator("tr.detail");
    await detail.locator(".timeline").waitFor();
    await expect(detail.locator(".vitem.expected .sev").textContent()).resolves.toBe("expected error");
    await expect(detail.locator(".vitem.error").count()).resolves.toBe(0);
    // Highlighted where it happened, but not as a failure.
    const marked = detail.locator(".timeline .item.violated");
    await expect(marked.count()).resolves.toBe(1);
    await expect(marked.getAttribute("class")).resolves.toContain("only-expected");
    await expect(marked.locator(".tool").first().textContent()).resolves.toContain("Write");
    const head = (await detail.locator(".tl-head").textContent()) ?? "";
    expect(head).toContain("replayed");
    expect(head).toMatch(/recording's cost \$[\d.]+ \(not spent\)/);
    expect(head).toMatch(/recorded model claude-/);
    // No dollar figure anywhere in the timeline itself (agent lanes, the run's final line).
    expect((await detail.locator(".agent").first().textContent()) ?? "").not.toContain("$");
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe("a run that ended in an API error, in headless Chromium", () => {
  it("says why it ended and what Claude Code said, never 'with an error · success'", async () => {
    const { page, problems } = await open(replayUrl);
    await rowNamed(page, "ends in an API error").click();
    const final = page.locator("tr.detail .final");
    await final.waitFor();
    const text = (await final.textContent()) ?? "";
    expect(text).toMatch(/^Run ended with an error · prompt_too_long · 1 turn/);
    expect(text).toContain("Prompt is too long");
    expect(text).not.toContain("success");
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe("the HTML report without JavaScript, in headless Chromium", () => {
  let noScript: Browser;
  let url: string;
  beforeAll(async () => {
    const results = buildResults([...demoCases(), forbiddenToolCase()], {
      suite: "gemini-offloader evals",
      startedAt: "2026-11-21T10:00:00Z",
      finishedAt: "2026-11-21T10:01:12Z",
    });
    const file = `${outDir}essentials.html`;
    writeFileSync(file, renderHtmlReport(results));
    url = pathToFileURL(file).href;
    noScript = await launchChromium({ javaScriptEnabled: false });
  }, 60_000);
  afterAll(async () => {
    await noScript?.close();
  });

  it("shows the summary counts, every case's verdict and the failing rules with their messages", async () => {
    const { page, problems } = await openPage(noScript, url, { ready: false });
    await expect(page.locator("html[data-ready]").count()).resolves.toBe(0);
    await expect(page.locator("#static-report").isVisible()).resolves.toBe(true);
    await expect(page.locator("#static-report h1").textContent()).resolves.toBe(
      "Evals · gemini-offloader evals",
    );
    await expect(page.locator(".static-summary").textContent()).resolves.toBe(
      "2 of 7 cases passed (28.6%) · 4 failed · 1 errored · 1 skipped · 12 trials · violations: 6 errors, 1 warnings, 0 info · 1m12s · $0.040",
    );
    const rows = page.locator(".static-cases tbody tr");
    await expect(rows.count()).resolves.toBe(8);
    await expect(rows.locator("td.verdict").allTextContents()).resolves.toEqual([
      "error",
      "failed",
      "failed",
      "failed",
      "failed",
      "passed",
      "passed",
      "skipped",
    ]);
    // The failing row leads with the rule that failed, then the verdict of its trials.
    const failing = rows.filter({ hasText: "lists files without the shell" });
    await expect(failing.locator("li").allTextContents()).resolves.toEqual([
      'behavior/forbidden-tool: Bash "ls" was called, but Bash must not be used (3 trials)',
      'Case "lists files without the shell" failed: 0 of 3 trials passed, and the suite needs every trial to pass.',
    ]);
    await expect(
      rows.filter({ hasText: "stops after a failed step" }).locator("li").first().textContent(),
    ).resolves.toBe(
      "stop-on-failure/continued-after-failure: Read ran after `Bash echo BLOCKME` failed instead of stopping to report.",
    );
    // Hostile data is text here too.
    await expect(
      rows.filter({ hasText: "renders hostile text safely" }).locator(".case-name").textContent(),
    ).resolves.toBe(`renders hostile text safely ${HOSTILE}`);
    await expect(page.locator("img").count()).resolves.toBe(0);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("with JavaScript, the interactive page replaces it and its failing row leads with the rule too", async () => {
    const { page, problems } = await open(url);
    await expect(page.locator("#static-report").count()).resolves.toBe(0);
    await expect(page.locator("tr.row").count()).resolves.toBe(8);
    await expect(rowNamed(page, "lists files without the shell").locator(".why").textContent()).resolves.toBe(
      'behavior/forbidden-tool: Bash "ls" was called, but Bash must not be used; Case "lists files without the shell" failed: 0 of 3 trials passed, and the suite needs every trial to pass.',
    );
    expect(problems).toEqual([]);
    await page.close();
  });
});
