import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  buildResults,
  caseResult,
  loggingFormats,
  loggingJsonSchema,
  RESULTS_VERSION,
  ResultsFileError,
  ResultsFileSchema,
  readResults,
  slug,
  writeJsonResults,
} from "../src/index.js";
import { historyName } from "../src/json-results.js";
import { demoCases } from "./demo-results.js";
import { fixtureRun } from "./fixtures.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "evals-results-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const results = () =>
  buildResults(demoCases(), {
    suite: "gemini-offloader evals",
    startedAt: "2026-11-21T10:00:00Z",
    finishedAt: "2026-11-21T10:01:12.500Z",
    cwd: dir,
    env: {},
  });

function validator(name: keyof typeof loggingFormats) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  return ajv.compile(loggingJsonSchema(name));
}

describe("the results file", () => {
  it("has meta, a summary, tallies by tag and by suite, and every case", () => {
    const r = results();
    expect(r.version).toBe(RESULTS_VERSION);
    expect(r.meta).toMatchObject({
      suite: "gemini-offloader evals",
      suites: ["gemini-offloader skill", "safety rules"],
      started_at: "2026-11-21T10:00:00.000Z",
      finished_at: "2026-11-21T10:01:12.500Z",
      claude_version: "2.1.330",
      // Only live runs called a model; the replayed ones name their recordings' models.
      model: "claude-sonnet-4-5",
      recorded_model: expect.stringContaining("claude-opus-5-5"),
      origins: { cassette: 2, replay: 3 },
      node_version: process.version,
      ci: false,
      runs_included: "all",
    });
    expect(r.meta.git_commit).toBeUndefined(); // a temp folder is no git checkout
    expect(r.summary).toMatchObject({
      total: 7,
      passed: 2,
      failed: 3,
      errored: 1,
      skipped: 1,
      pass_rate: 2 / 6,
      duration_ms: 72_500,
      trials: 9,
      violations: { error: 3, warning: 1, info: 0 },
    });
    // Replayed trials spent nothing: only the live ones count, the others keep their recorded cost.
    expect(r.summary.cost_usd).toBeCloseTo(2 * 0.02, 6);
    const recorded = r.cases.flatMap((c) => c.trials.map((t) => t.recorded_cost_usd ?? 0));
    expect(recorded.reduce((sum, cost) => sum + cost, 0)).toBeCloseTo(0.171 + 0.303 + 3 * 0.041, 6);
    expect(r.by_tag.safety).toEqual({
      total: 3,
      passed: 1,
      failed: 1,
      errored: 1,
      skipped: 0,
      pass_rate: 1 / 3,
    });
    expect(r.by_suite["gemini-offloader skill"]).toMatchObject({ total: 3, passed: 1, failed: 2 });
    const flaky = r.cases.find((c) => c.id === "research-offload")!;
    expect(flaky.stats).toMatchObject({ trials: 3, passed: 2, k: 3, pass_at_k: 1, pass_hat_k: 0 });
    expect(flaky.violations).toEqual([
      expect.objectContaining({ rule: "forbidden-commands", trial: 1, severity: "error" }),
    ]);
    // Its three trials were replayed: no cost spent, each keeps its recording's.
    expect(flaky.cost_usd).toBeUndefined();
    expect(flaky.trials.map((t) => [t.origin, t.cost_usd, t.recorded_cost_usd])).toEqual([
      ["replay", undefined, 0.041],
      ["replay", undefined, 0.041],
      ["replay", undefined, 0.041],
    ]);
  });

  it("validates against its zod schema and its exported JSON Schema", () => {
    const r = results();
    expect(ResultsFileSchema.safeParse(r).success).toBe(true);
    const validate = validator("results");
    expect(validate(JSON.parse(JSON.stringify(r))), JSON.stringify(validate.errors)).toBe(true);
    // The JSON Schema rejects what the zod schema rejects.
    const broken = JSON.parse(JSON.stringify(r));
    broken.cases[0].status = "green";
    expect(validate(broken)).toBe(false);
    expect(ResultsFileSchema.safeParse(broken).success).toBe(false);
    const noVersion = JSON.parse(JSON.stringify(r));
    delete noVersion.version;
    expect(validate(noVersion)).toBe(false);
  });

  it("ships up-to-date JSON Schemas (run `npm run schemas -w @evals/logging` after changing one)", () => {
    for (const name of Object.keys(loggingFormats) as (keyof typeof loggingFormats)[]) {
      const shipped = JSON.parse(readFileSync(new URL(`../schemas/${name}.json`, import.meta.url), "utf8"));
      expect(shipped).toEqual(loggingJsonSchema(name));
    }
  });
});

describe("violations the case expected, in the results file", () => {
  it("keeps them marked expected and counts them apart from the errors", () => {
    // The real multi-tool run presses on after `echo BLOCKME` failed, which this case expects.
    const presses = caseResult({
      id: "presses-on",
      name: "presses on, as expected",
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
            },
            {
              rule: "tool-usage",
              type: "prefer-dedicated-tool",
              severity: "warning",
              message: "grep in Bash",
            },
          ],
          run: fixtureRun("multi-tool"),
        },
      ],
    });
    const files = writeJsonResults(buildResults([presses], { suite: "expectations", env: {} }), { dir });
    const read = readResults(files.latest);
    expect(read.summary.violations).toEqual({ error: 0, warning: 1, info: 0, expected: 1 });
    expect(read.cases[0]!.status).toBe("passed");
    expect(read.cases[0]!.violations.map((v) => [v.rule, v.severity, v.expected])).toEqual([
      ["stop-on-failure", "error", true],
      ["tool-usage", "warning", undefined],
    ]);
    // As written on disk, not only as read back.
    const raw = JSON.parse(readFileSync(files.latest, "utf8"));
    expect(raw.cases[0].violations[0].expected).toBe(true);
    expect(raw.summary.violations.error).toBe(0);
  });
});

describe("writeJsonResults", () => {
  it("writes latest.json and history/<YYYY-MM>/<DD-HHMMSS>-<suite>.json", () => {
    const files = writeJsonResults(results(), { dir });
    expect(files.latest).toBe(join(dir, "latest.json"));
    expect(files.history).toBe(join(dir, "history", "2026-11", "21-100112-gemini-offloader-evals.json"));
    expect(readFileSync(files.latest, "utf8")).toBe(readFileSync(files.history, "utf8"));
    expect(readResults(files.latest).summary.total).toBe(7);
  });

  it("never overwrites a history file: a second run in the same second gets -2", () => {
    const first = writeJsonResults(results(), { dir });
    const second = writeJsonResults(results(), { dir });
    expect(second.history).toBe(join(dir, "history", "2026-11", "21-100112-gemini-offloader-evals-2.json"));
    expect(readResults(first.history).cases).toHaveLength(7);
  });

  it("keeps the runs of cases that did not pass, unless told otherwise", () => {
    const runsOf = (file: string) =>
      readResults(file)
        .cases.filter((c) => c.trials.some((t) => t.run))
        .map((c) => c.id);
    const failedOnly = writeJsonResults(results(), { dir });
    expect(runsOf(failedOnly.latest)).toEqual(["stops-on-failure", "research-offload", "hostile-input"]);
    expect(readResults(failedOnly.latest).meta.runs_included).toBe("failed");
    const all = writeJsonResults(results(), { dir, includeRuns: "all" });
    expect(runsOf(all.latest)).toHaveLength(5);
    const none = writeJsonResults(results(), { dir, includeRuns: "none" });
    expect(runsOf(none.latest)).toEqual([]);
  });

  it("writes atomically: no temporary file is left behind", () => {
    writeJsonResults(results(), { dir });
    writeJsonResults(results(), { dir });
    expect(readdirSync(dir).sort()).toEqual(["history", "latest.json"]);
    expect(readdirSync(join(dir, "history", "2026-11")).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  it("names history files by the suite's slug, in UTC", () => {
    expect(slug("Gemini Offloader: skill (layer 2) — résumé")).toBe("gemini-offloader-skill-layer-2-resume");
    expect(slug("///")).toBe("evals");
    expect(
      historyName({ meta: { ...results().meta, finished_at: "2027-01-05T23:04:09+02:00", suite: "x" } }),
    ).toEqual({
      folder: "2027-01",
      name: "05-210409-x",
    });
  });
});

describe("readResults", () => {
  it("names the file and the field that is wrong", () => {
    const file = join(dir, "bad.json");
    const r = JSON.parse(JSON.stringify(results()));
    r.cases[2].scores[0].score = 7;
    writeFileSync(file, JSON.stringify(r));
    expect(() => readResults(file)).toThrow(ResultsFileError);
    expect(() => readResults(file)).toThrow(`${file} (field cases[2].scores[0].score): Too big`);
  });

  it("says when a file is not JSON, or newer than this reader", () => {
    const file = join(dir, "x.json");
    writeFileSync(file, "{ nope");
    expect(() => readResults(file)).toThrow(`${file}: not valid JSON`);
    writeFileSync(file, JSON.stringify({ ...results(), version: 2 }));
    expect(() => readResults(file)).toThrow("written by a newer @evals/logging (format version 2)");
    expect(() => readResults(join(dir, "missing.json"))).toThrow("cannot read");
  });
});

describe("the eval test metadata", () => {
  it("validates against its exported JSON Schema", () => {
    const validate = validator("eval-test-meta");
    for (const evalCase of demoCases()) {
      const meta = JSON.parse(JSON.stringify({ evalCase }));
      expect(validate(meta), JSON.stringify(validate.errors)).toBe(true);
    }
    expect(validate({ evalCase: { id: "x" } })).toBe(false);
  });
});
