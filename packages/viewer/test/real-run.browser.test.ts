// biome-ignore-all lint/performance/useDomNodeTextContent: Playwright's innerText (rendered text) is what a reader sees
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readRunFolder } from "@evals/core";
import type { CaseResult, ResultsFile } from "@evals/logging";
import type { Store } from "@evals/store";
import { type Browser, clickThrough, launchChromium } from "@evals/test-kit/chromium";
import { startViewer, type Viewer } from "@evals/viewer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "./fill.js";

/**
 * fixtures/find-todos: the latest.json and run folders of one real `evals run` of the find-todos
 * example's two cases, replayed strictly through the real claude CLI (both passed). The database gets
 * that run four times, an hour apart; in the 2nd and 4th, `grep-in-bash` failed: its trial is the
 * real run folder of the other case (a Skill then Grep trajectory where Bash was expected) and its
 * violations are not expected. So the case is flaky, and run 4 against run 3 is a planted regression.
 */
const fixture = join(__dirname, "fixtures", "find-todos");
const root = mkdtempSync(join(tmpdir(), "evals-viewer-real-"));
let store: Store;
let viewer: Viewer;
let browser: Browser;
const runIds: string[] = [];

beforeAll(async () => {
  cpSync(fixture, root, { recursive: true });
  const folders = readdirSync(join(root, "runs"));
  const folderOf = (caseId: string) => join(root, "runs", folders.find((f) => f.includes(caseId))!);
  const real = JSON.parse(readFileSync(join(root, "latest.json"), "utf8")) as ResultsFile;
  store = await openStore(join(root, "db"));
  for (let run = 1; run <= 4; run++) {
    const regressed = run % 2 === 0;
    const cases: CaseResult[] = [];
    for (const c of real.cases) {
      const failing = regressed && c.id === "grep-in-bash";
      const folder = folderOf(failing ? "skill-then-grep" : c.id);
      const trials = [];
      for (const t of c.trials) {
        const violations = t.violations.map((v) => ({ ...v, expected: !failing }));
        // The trial carries its run, as evals run does with every run kept: the database gets its steps.
        trials.push({
          ...t,
          status: failing ? ("failed" as const) : t.status,
          violations,
          output_dir: folder,
          run: (await readRunFolder(folder)).run,
        });
      }
      cases.push({
        ...c,
        file: join(root, "find-todos.yaml"),
        status: failing ? "failed" : c.status,
        trials,
        violations: trials.flatMap((t) => t.violations),
      });
    }
    const finished = new Date(Date.UTC(2026, 10, 22, run));
    const results: ResultsFile = {
      ...real,
      meta: {
        ...real.meta,
        started_at: new Date(finished.getTime() - 60_000).toISOString(),
        finished_at: finished.toISOString(),
        git_commit: `${run}`.repeat(40),
        git_branch: "main",
      },
      summary: { ...real.summary, passed: regressed ? 1 : 2, failed: regressed ? 1 : 0 },
      cases,
    };
    runIds.push((await store.record(results, "run")).runId);
  }
  viewer = await startViewer({ store });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await viewer?.close();
  await store?.close();
  rmSync(root, { recursive: true, force: true });
});

describe("evals view over a real replayed run of find-todos and its variations", () => {
  it("lists the four runs, and reaches the flaky case's failing trial's real transcript", async () => {
    const page = await browser.context.newPage();
    await page.goto(viewer.url);
    expect(await page.locator("#runs tbody tr").count()).toBe(4);
    await clickThrough(page.getByRole("link", { name: "Flaky cases" }));
    const section = page.locator("section.flaky");
    expect(await section.locator("h2").innerText()).toBe("find-todos › grep-in-bash");
    expect(await section.innerText()).toContain("2 trial(s) passed and 2 failed over 4 run(s)");
    await clickThrough(section.locator("a.trial.failed").last());
    expect(await page.locator("#violations").innerText()).toContain("Skill was never called");
    const transcript = await page.locator("#transcript").innerText();
    expect(transcript).toMatch(/tool_call Skill/);
    expect(transcript).toMatch(/tool_call Grep/);
    expect(await page.content()).toContain("skill-then-grep");
    await page.close();
  });

  it("shows the planted regression between runs 3 and 4 with its first divergent step", async () => {
    const page = await browser.context.newPage();
    await page.goto(new URL("/compare", viewer.url).href);
    await page.selectOption("select[name=a]", runIds[2]!);
    await page.selectOption("select[name=b]", runIds[3]!);
    await clickThrough(page.getByRole("button", { name: "Compare" }));
    const row = await page.locator("#flips tr", { hasText: "grep-in-bash" }).innerText();
    expect(row).toMatch(/100% \(1\/1\)\s+0% \(0\/1\)/);
    expect(row).toMatch(/step 1: B called Skill \{"skill":"todo-report"\}, A Bash \{"command":"grep -rlE/);
    expect(await page.locator("#flips tr", { hasText: "skill-then-grep" }).count()).toBe(0);
    await page.close();
  });
});
