import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { caseDetail, timelineOf } from "../src/html-data.js";
import { escapeHtml, scriptJson } from "../src/html-report.js";
import {
  buildResults,
  type CaseResult,
  caseResult,
  compareResults,
  cut,
  readResults,
  renderHtmlReport,
  textPrefix,
  writeReports,
} from "../src/index.js";
import { demoCases, forbiddenToolCase, HOSTILE } from "./demo-results.js";
import { fixtureRun } from "./fixtures.js";

describe("renderHtmlReport", () => {
  const cases = demoCases();
  const html = renderHtmlReport(buildResults(cases, { env: {} }));

  it("is one self-contained file: inline style and script, nothing fetched", () => {
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).not.toMatch(/<(link|img|iframe|object|embed)\b/i);
    // The data (JSON blocks, and the static summary's escaped text) may mention anything, as text.
    const page = html
      .replace(/<script type="application\/json"[^>]*>[^<]*<\/script>/g, "")
      .replace(/<section id="static-report"[\s\S]*?<\/section>/, "");
    const staticTags = html.match(/<section id="static-report"[\s\S]*?<\/section>/)![0].match(/<[a-z0-9]+/g);
    expect(new Set(staticTags)).toEqual(
      new Set([
        "<section",
        "<h1",
        "<p",
        "<b",
        "<table",
        "<thead",
        "<tr",
        "<th",
        "<tbody",
        "<td",
        "<span",
        "<code",
        "<ul",
        "<li",
      ]),
    );
    expect(page).not.toMatch(/\b(src|href)=/i);
    expect(page).not.toMatch(/https?:\/\//);
    expect(page).not.toMatch(/\b(fetch|XMLHttpRequest|WebSocket|import)\(/);
    expect(html).toContain(`content="default-src 'none';`);
  });

  it("embeds the index and one lazily parsed data block per case", () => {
    const blocks = [...html.matchAll(/<script type="application\/json" id="([^"]+)">/g)].map((m) => m[1]);
    expect(blocks).toEqual(["evals-index", ...cases.map((_, n) => `case-${n}`)]);
  });

  it("never lets data close a script element or open a comment", () => {
    // The only </script> tags are the page's own: one per script element.
    const scripts = html.match(/<script\b/g)!.length;
    expect(html.match(/<\/script>/gi)!.length).toBe(scripts);
    expect(html).not.toContain("<!--");
    expect(html).not.toContain(HOSTILE);
    const parsed = JSON.parse(scriptJson({ text: HOSTILE, ls: "\u2028" }));
    expect(parsed).toEqual({ text: HOSTILE, ls: "\u2028" });
  });

  it("inlines its script as one bundle of the report client, not a module", () => {
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(scripts).toHaveLength(1);
    expect(scripts[0]).toMatch(/^("use strict";)?\(\(\)=>\{/);
    expect(scripts[0]).not.toMatch(/\b(import|export|require)\b[\s({"']/);
    expect(scripts[0]).toContain("data-ready");
  });

  it("shows a comparison only when given one, and names the field of a wrong one", () => {
    expect(html).not.toContain('id="comparison"');
    const results = buildResults(cases, { env: {} });
    const comparison = compareResults(results, results, { labels: ["before", "after"] });
    const page = renderHtmlReport(results, { comparison });
    expect(page).toContain('<section class="comparison" id="comparison">');
    expect(page).toContain("<h2>Comparison: after against before</h2>");
    const wrong = {
      ...comparison,
      overall: { ...comparison.overall, a: { ...comparison.overall.a, rate: 2 } },
    };
    expect(() => renderHtmlReport(results, { comparison: wrong })).toThrow(
      /options\.comparison .*\(field overall\.a\.rate: Too big/,
    );
  });

  it("shows several comparisons one after the other, in one element the script moves", () => {
    const results = buildResults(cases, { env: {} });
    const first = compareResults(results, results, { labels: ["plain", "house-rule"] });
    const second = compareResults(results, results, { labels: ["sonnet", "opus"] });
    const page = renderHtmlReport(results, { comparison: [first, second] });
    expect(page).toContain('<div class="comparisons" id="comparison">');
    expect(page.match(/id="comparison"/g)).toHaveLength(1);
    const titles = [...page.matchAll(/<h2>(Comparison: [^<]*)<\/h2>/g)].map((m) => m[1]);
    expect(titles).toEqual(["Comparison: house-rule against plain", "Comparison: opus against sonnet"]);
  });

  it("has its essentials in the HTML itself: summary counts, each verdict, the failing rules first", () => {
    const page = renderHtmlReport(buildResults([...cases, forbiddenToolCase()], { env: {} }));
    const section = /<section id="static-report"[\s\S]*?<\/section>/.exec(page)?.[0] ?? "";
    const text = (markup: string) =>
      markup
        .replace(/<[^>]+>/g, " ")
        .replace(/&quot;/g, '"')
        .replace(/&lt;/g, "<")
        .replace(/&gt;/g, ">")
        .replace(/&amp;/g, "&")
        .replace(/\s+/g, " ")
        .trim();
    expect(text(/<p class="static-summary">[\s\S]*?<\/p>/.exec(section)?.[0] ?? "")).toBe(
      "2 of 7 cases passed (28.6%) · 4 failed · 1 errored · 1 skipped · 12 trials · violations: 6 errors, 1 warnings, 0 info · 1m12s · $0.040",
    );
    const rows = [...section.matchAll(/<tr data-status="([a-z]+)">([\s\S]*?)<\/tr>/g)].map((m) => [
      m[1],
      text(m[2]!),
    ]);
    // Every case, failures first (as the interactive page sorts them).
    expect(rows.map((row) => row[0])).toEqual([
      "error",
      "failed",
      "failed",
      "failed",
      "failed",
      "passed",
      "passed",
      "skipped",
    ]);
    // The failing row leads with the rule that failed; the verdict of its trials follows.
    expect(rows.find((row) => row[1]?.includes("lists files without the shell"))?.[1]).toBe(
      'failed lists files without the shell no-shell · 0 of 3 trials passed behavior/forbidden-tool : Bash "ls" was called, but Bash must not be used (3 trials) Case "lists files without the shell" failed: 0 of 3 trials passed, and the suite needs every trial to pass.',
    );
    // Data stays text.
    expect(section).not.toContain(HOSTILE);
    expect(section).toContain(escapeHtml(`renders hostile text safely ${HOSTILE}`));
  });

  it("cuts a long failure message in its static summary never between the halves of an emoji", () => {
    const failing = forbiddenToolCase();
    // The 600th UTF-16 unit is the first half of 😀: the cut leaves all of it out.
    const message = `${"x".repeat(599)}😀 and more`;
    for (const trial of failing.trials) for (const v of trial.violations) v.message = message;
    for (const v of failing.violations) v.message = message;
    const page = renderHtmlReport(buildResults([failing], { env: {} }));
    const section = /<section id="static-report"[\s\S]*?<\/section>/.exec(page)?.[0] ?? "";
    expect(section).toContain(`${"x".repeat(599)}…`);
    expect(section).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });

  it("escapes the title", () => {
    const page = renderHtmlReport(buildResults(cases, { env: {} }), { title: "<b>x</b> & y" });
    expect(page).toContain("<title>&lt;b&gt;x&lt;/b&gt; &amp; y</title>");
  });
});

describe("the report's timeline data", () => {
  it("nests the real subagent under the Agent call that started it", () => {
    const { root, sessions, maxDepth, spanMs } = timelineOf(fixtureRun("subagent"));
    expect([sessions, maxDepth]).toEqual([2, 1]);
    expect(spanMs).toBe(748);
    expect(root.items.map((i) => i.k)).toEqual(["user", "call", "text", "final"]);
    const agentCall = root.items[1]!;
    if (agentCall.k !== "call") throw new Error("expected a call");
    expect(agentCall).toMatchObject({ name: "Agent", status: "ok", at: 0, durationMs: 660 });
    expect(agentCall.child).toMatchObject({
      id: "a03261a2b1bf87fc6",
      type: "general-purpose",
      depth: 1,
      toolCalls: 1,
    });
    const childCall = agentCall.child!.items.find((i) => i.k === "call")!;
    expect(childCall).toMatchObject({
      name: "Bash",
      summary: "echo from-child",
      output: "from-child",
      at: 198,
      durationMs: 180,
    });
  });

  it("points each violation at the item where it happened", () => {
    const stops = demoCases().find((c) => c.id === "stops-on-failure")!;
    const detail = caseDetail(stops);
    const [stop, approval] = detail.violations;
    const items = detail.trials[0]!.timeline!.items;
    const byKey = (key: string | undefined) => items.find((i) => i.key === key);
    // by event index (the Read after the failure), and by tool_use_id (the denied Write)
    expect(byKey(stop!.target)).toMatchObject({ k: "call", name: "Read", status: "error", v: [0] });
    expect(byKey(approval!.target)).toMatchObject({ k: "call", name: "Write", status: "denied", v: [1] });
  });

  it("maps a pointer at a tool_result to its call, and one at an agent to its lane", () => {
    const run = fixtureRun("subagent");
    const c: CaseResult = caseResult({
      id: "x",
      name: "x",
      trials: [
        {
          status: "failed",
          scores: [],
          violations: [
            { rule: "r", type: "result", severity: "info", message: "m", pointer: { event_index: 5 } },
            {
              rule: "r",
              type: "agent",
              severity: "warning",
              message: "m",
              pointer: { agent: "a03261a2b1bf87fc6" },
            },
            { rule: "r", type: "nowhere", severity: "error", message: "m", pointer: { event_index: 999 } },
          ],
          run,
        },
      ],
    });
    const detail = caseDetail(c);
    expect(detail.violations.map((v) => v.target)).toEqual(["e4", "aa03261a2b1bf87fc6", undefined]);
  });

  it("cuts long texts and says by how much", () => {
    expect(cut("abcdef", 4)).toBe("abcd… (2 more characters)");
    // "a😀b" is a, the two halves of 😀, then b: a cut in the middle of 😀 leaves all of it out.
    expect(cut("a😀b", 2)).toBe("a… (3 more characters)");
    expect(cut("a😀b", 3)).toBe("a😀… (1 more characters)");
    expect(textPrefix("a😀b", 2)).toBe("a");
    expect(textPrefix("a😀b", 3)).toBe("a😀");
    expect(textPrefix("ab", 5)).toBe("ab");
    const long = "x".repeat(10_000);
    const c = caseResult({
      id: "l",
      name: "l",
      trials: [{ status: "passed", scores: [], run: fixtureRun("subagent") }],
    });
    const run = c.trials[0]!.run!;
    const big = {
      ...run,
      events: run.events.map((e) => (e.type === "tool_result" ? { ...e, output: long } : e)),
    };
    const items = timelineOf(big, 100).root.items;
    const call = items.find((i) => i.k === "call");
    expect(call?.k === "call" && call.output).toBe(`${"x".repeat(100)}… (9,900 more characters)`);
  });
});

describe("writeReports", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "evals-reports-"));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("writes the JSON results, JUnit XML and the HTML report", () => {
    const { results, files } = writeReports(demoCases(), { dir, suite: "demo", env: {} });
    expect(files).toEqual({
      latest: join(dir, "latest.json"),
      history: expect.stringMatching(/history\/\d{4}-\d\d\/\d\d-\d{6}-demo\.json$/),
      junit: join(dir, "junit.xml"),
      html: join(dir, "report.html"),
    });
    expect(readResults(files.latest).summary).toEqual(results.summary);
    expect(readFileSync(files.junit!, "utf8")).toContain("<testsuites");
    // The HTML report shows every trial's timeline, even those the JSON file leaves out.
    const html = readFileSync(files.html!, "utf8");
    expect(html).toContain("echo from-child");
    expect(
      readResults(files.latest).cases.find((c) => c.id === "delegates-echo")!.trials[0]!.run,
    ).toBeUndefined();
    expect(readdirSync(dir).sort()).toEqual(["history", "junit.xml", "latest.json", "report.html"]);
  });

  it("can skip JUnit and HTML, or write them elsewhere", () => {
    const { files } = writeReports(demoCases(), {
      dir,
      junit: false,
      html: join(dir, "site", "index.html"),
      env: {},
    });
    expect(files.junit).toBeUndefined();
    expect(files.html).toBe(join(dir, "site", "index.html"));
    expect(readdirSync(dir).sort()).toEqual(["history", "latest.json", "site"]);
  });

  it("rejects a malformed case, naming it and the field, before writing anything", () => {
    const cases = demoCases();
    (cases[2] as { scores: unknown[] }).scores = [{ scorer: "x", score: "high", passed: true }];
    expect(() => writeReports(cases, { dir, env: {} })).toThrow(
      'case 2 "research-offload" (field scores[0].score): Invalid input: expected number, received string',
    );
    expect(readdirSync(dir)).toEqual([]);
  });
});
