// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText (rendered text, cells apart) is what a reader sees, not the DOM property
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Store } from "@evals/store";
import { type Browser, clickThrough, launchChromium } from "@evals/test-kit/chromium";
import { startViewer, type Viewer } from "@evals/viewer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type PlannedCase, planned, results } from "./fill.js";

const root = mkdtempSync(join(tmpdir(), "evals-viewer-"));
const EVIL = `<img src=x onerror="window.__pwned=1">\u001b[31mred`;
let store: Store;
let viewer: Viewer;
let browser: Browser;
const runIds: string[] = [];

/**
 * Four runs, an hour apart: `flaky` passes, fails, passes, fails (same case file); `regress` passes
 * three times, then its case file changes and it fails (a regression, not flakiness); `steady`
 * always passes; a case whose name holds markup and a terminal escape.
 */
beforeAll(async () => {
  const file = (name: string, content: string) => {
    const path = join(root, "cases", name);
    mkdirSync(join(root, "cases"), { recursive: true });
    writeFileSync(path, content);
    return path;
  };
  const flaky = file("flaky.yaml", "id: flaky\n");
  const steady = file("steady.yaml", "id: steady\n");
  const evil = file("evil.yaml", "id: evil\n");
  store = await openStore(join(root, "db"));
  for (let run = 1; run <= 4; run++) {
    const regress = file("regress.yaml", run < 4 ? "id: regress\n" : "id: regress\nprompt: changed\n");
    const folder = (id: string) => join(root, "runs", `run${run}`, id);
    const cases: PlannedCase[] = [
      { id: "flaky", file: flaky, status: run % 2 === 1 ? "passed" : "failed", runFolder: folder("flaky") },
      { id: "regress", file: regress, status: run < 4 ? "passed" : "failed", runFolder: folder("regress") },
      { id: "steady", file: steady, status: "passed", runFolder: folder("steady") },
      { id: "evil", name: EVIL, file: evil, status: "passed" },
    ];
    const report = join(root, `report${run}.html`);
    writeFileSync(
      report,
      `<!doctype html><title>report of run ${run}</title><h1>the report of run ${run}</h1>`,
    );
    const recorded = await store.record(
      results(cases.map(planned), new Date(Date.UTC(2026, 10, 20, run)), `${run}`.repeat(40), "main"),
      "run",
      { dir: root, html: report },
    );
    runIds.push(recorded.runId);
  }
  // Run 2's folder of the flaky case is gone: its trial page falls back to the stored steps.
  rmSync(join(root, "runs", "run2", "flaky"), { recursive: true });
  viewer = await startViewer({ store });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await viewer?.close();
  await store?.close();
  rmSync(root, { recursive: true, force: true });
});

async function open(path: string) {
  const page = await browser.context.newPage();
  const problems: string[] = [];
  page.on("console", (m) => problems.push(`${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  const response = await page.goto(new URL(path, viewer.url).href);
  return { page, problems, status: response?.status() };
}

describe("evals view's pages in headless Chromium", () => {
  it("lists the runs over time with a chart, newest first, each linked to its run", async () => {
    const { page, problems, status } = await open("/");
    expect(status).toBe(200);
    expect(await page.locator("#runs tbody tr").count()).toBe(4);
    expect(await page.locator("svg circle").count()).toBe(4);
    const first = await page.locator("#runs tbody tr").first().innerText();
    expect(first).toContain("2026-11-20 04:00:00");
    expect(first).toContain("main");
    expect(first).toContain("4444444444");
    expect(first).toContain("50%");
    expect(await page.evaluate("document.scripts.length")).toBe(0);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("shows a run's cases, verdicts and violations, escaping a case name, and links its report", async () => {
    const { page, problems } = await open("/");
    await clickThrough(page.locator("#runs tbody tr").first().locator("a"));
    const cases = await page.locator("#cases").innerText();
    expect(cases).toContain("case regress");
    expect(cases).toMatch(/failed\s+0\/1/);
    expect(cases).toContain("edited a.ts unread");
    // The name is shown as text, its ESC visible; nothing of it ran or loaded.
    expect(cases).toContain(`<img src=x onerror="window.__pwned=1">\\x1b[31mred`);
    expect(await page.evaluate("window.__pwned")).toBeUndefined();
    expect(await page.locator("#cases img").count()).toBe(0);
    await clickThrough(page.getByText("its HTML report"));
    expect(await page.locator("h1").innerText()).toBe("the report of run 4");
    expect(problems).toEqual([]);
    await page.close();
  });

  it("reaches a flaky case's failing trial's transcript from the flaky cases page", async () => {
    const { page, problems } = await open("/flaky");
    const section = page.locator("section.flaky");
    expect(await section.count()).toBe(1);
    expect(await section.locator("h2").innerText()).toBe("viewer › flaky");
    expect(await section.innerText()).toContain("2 trial(s) passed and 2 failed over 4 run(s)");
    expect(await section.innerText()).toContain('the failing trial called Edit {"file_path":"a.ts"}');
    await clickThrough(section.locator("a.trial.failed").last());
    expect(await page.locator("h1").innerText()).toBe("Trial 0 of case flaky");
    expect(await page.locator("#violations").innerText()).toContain("read-before-edit");
    const transcript = await page.locator("#transcript").innerText();
    expect(transcript).toContain("user_message");
    expect(transcript).toMatch(/tool_call Edit/);
    expect(transcript).not.toMatch(/tool_call Read/);
    expect(await page.content()).toContain(join(root, "runs", "run4", "flaky"));
    expect(problems).toEqual([]);
    await page.close();
  });

  it("says when a trial's run folder is gone and shows the stored steps instead", async () => {
    const { page } = await open(`/trial?run=${runIds[1]}&pos=0&trial=0`);
    expect(await page.locator(".note").innerText()).toContain(
      `${join(root, "runs", "run2", "flaky")} is gone`,
    );
    expect(await page.locator("#steps tbody tr").count()).toBe(1);
    expect(await page.locator("#steps").innerText()).toContain("Edit");
    await page.close();
  });

  it("shows a case's pass rate over its runs with the 95% band and every trial", async () => {
    const { page } = await open("/case?suite=viewer&id=flaky");
    expect(await page.locator("svg polygon.band").count()).toBe(1);
    expect(await page.locator("svg circle").count()).toBe(4);
    expect(await page.locator("#trials a", { hasText: "trial 0" }).count()).toBe(4);
    expect(await page.locator("main > p").first().innerText()).toContain(
      "2/4 trials passed over its last 4 run(s)",
    );
    await page.close();
  });

  it("compares two runs picked in the form: the planted regression, its first divergent step, the deltas", async () => {
    const { page, problems } = await open("/compare");
    await page.selectOption("select[name=a]", runIds[2]!);
    await page.selectOption("select[name=b]", runIds[3]!);
    await clickThrough(page.getByRole("button", { name: "Compare" }));
    const regress = page.locator("#flips tr", { hasText: "case regress" });
    expect(await regress.count()).toBe(1);
    const row = await regress.innerText();
    expect(row).toMatch(/100% \(1\/1\)\s+0% \(0\/1\)/);
    expect(row).toContain('step 1: B called Edit {"file_path":"a.ts"}, A Read {"file_path":"a.ts"}');
    expect(row).toContain("tokens −100");
    expect(await page.locator("#flips tr", { hasText: "case steady" }).count()).toBe(0);
    await clickThrough(regress.getByText("B's trial"));
    expect(page.url()).toContain(`run=${runIds[3]}`);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("answers an unknown run with 404 and a link back", async () => {
    const { page, status } = await open("/run?id=nope");
    expect(status).toBe(404);
    expect(await page.locator("main").innerText()).toContain("Run nope is not in this database");
    await page.close();
  });
});
