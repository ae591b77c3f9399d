import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { claudeAvailable, claudeCodeRunner } from "@evals/claude-code";
import { readRunFolder } from "@evals/core";
import { loadCases, scorersForCase } from "@evals/evaluators";
import { type CaseOutcome, evaluateCase, runCase } from "@evals/harness";
import {
  buildResults,
  formatCasesTable,
  LiveLogger,
  renderHtmlReport,
  renderJunit,
  reportIndex,
} from "@evals/logging";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/*
 * What the user sees for a real replay: the find-todos example's "grep-in-bash" case, replayed from
 * its recording by the real claude CLI through runCase (a fresh copy of its fixture). The agent greps in Bash, and the case expects exactly the
 * violations that catches (expectedViolations), so it passes: every output must show those
 * violations as expected (not as errors beside "passed") and the run as replayed (no dollar cost
 * spent, its model the recording's).
 */
const findTodos = (path: string) =>
  fileURLToPath(new URL(`../../../examples/find-todos/${path}`, import.meta.url));
const claudeBin = resolve(__dirname, "../../../node_modules/.bin/claude");
const evalCase = loadCases(findTodos("cases/find-todos.yaml")).find((c) => c.id === "grep-in-bash")!;

let outcome: CaseOutcome;
const outputRoot = mkdtempSync(join(tmpdir(), "replayed-reports-"));
afterAll(() => rmSync(outputRoot, { recursive: true, force: true }));
const evalsBin = resolve(__dirname, "../dist/cli.js");

describe.skipIf(!claudeAvailable({ claudeBin }).available)(
  "a replayed case whose expected violations occurred",
  () => {
    beforeAll(async () => {
      outcome = await evaluateCase(evalCase, 0, {
        suite: "find-todos",
        scorers: scorersForCase(evalCase),
        cassette: { dir: findTodos("cassettes"), mode: "strict" },
        outputRoot,
        agent: claudeCodeRunner,
        task: (_input, trial) => runCase(trial, evalCase, { runAgent: { options: { claudeBin } } }),
      });
    }, 180_000);

    it("passes, with every violation it produced marked expected", () => {
      expect(outcome.result.status).toBe("passed");
      const { violations } = outcome.result;
      expect(violations.map((v) => `${v.rule}/${v.type}`)).toEqual(
        expect.arrayContaining([
          "tool-usage/bash-instead-of-grep",
          "behavior/missing-required-tool",
          "behavior/forbidden-tool",
        ]),
      );
      expect(violations.filter((v) => v.severity === "error").length).toBeGreaterThan(0);
      expect(violations.filter((v) => !v.expected)).toEqual([]);
    });

    it("is a replay, its recorded cost kept apart from what was spent", () => {
      const [trial] = outcome.result.trials;
      expect(trial?.origin).toBe("replay");
      expect(trial?.cost_usd).toBeUndefined();
      expect(trial?.recorded_cost_usd).toBeGreaterThan(0);
      expect(outcome.result.cost_usd).toBeUndefined();
    });

    it("JSON results: no errors, the expected violations counted apart, no cost and no live model", () => {
      const results = buildResults([outcome.result], { meta: { git_commit: "test" } });
      expect(results.summary.violations).toEqual({
        error: 0,
        warning: 0,
        info: 0,
        expected: outcome.result.violations.length,
      });
      expect(results.summary.cost_usd).toBeUndefined();
      expect(results.meta.model).toBeUndefined();
      expect(results.meta.recorded_model).toBe(outcome.result.trials[0]?.run?.model);
      expect(results.meta.origins).toEqual({ replay: 1 });
    });

    it("console table and verdict line: 'N expected' and 'replayed', no errors and no dollars", () => {
      const table = formatCasesTable([outcome.result]);
      const row = table.split("\n").find((line) => line.includes("ignores the skill"))!;
      expect(row).toContain("✓ pass");
      expect(row).toContain(`${outcome.result.violations.length} expected`);
      expect(row).toContain("replayed");
      expect(table).not.toMatch(/\d+ errors?/);
      expect(table).not.toContain("$");

      let printed = "";
      const logger = new LiveLogger({
        stream: { write: (chunk: string) => (printed += chunk) },
        mode: "verbose",
        progress: false,
      });
      logger.caseFinished(outcome.result);
      expect(printed).toContain("✓ PASS");
      expect(printed).toContain("replayed");
      expect(printed).not.toContain("$");
      expect(printed).toContain("error (expected) behavior/forbidden-tool");
      expect(printed).not.toMatch(/^ {4}(error|warning) (?!\(expected\))/m);
    });

    it("JUnit: expected violations labelled so, the run's origin and its recording's cost, no live model", () => {
      const xml = renderJunit(buildResults([outcome.result], { meta: { git_commit: "test" } }));
      expect(xml).toContain("warning (expected): tool-usage/bash-instead-of-grep");
      expect(xml).not.toMatch(/^error: /m);
      expect(xml).toContain('<property name="origin" value="replayed"/>');
      expect(xml).toContain('<property name="recorded_model"');
      expect(xml).not.toContain('<property name="model"');
      expect(xml).toMatch(/recorded cost: \$[\d.]+ \(what the recording cost; not spent in this run\)/);
      expect(xml).not.toMatch(/^cost: /m);
    });

    it("HTML report data: expected violations, a replayed row without a cost, no costs in the timeline", () => {
      const results = buildResults([outcome.result], { meta: { git_commit: "test" } });
      const [row] = reportIndex(results).cases;
      expect(row?.violations).toEqual({
        error: 0,
        warning: 0,
        info: 0,
        expected: outcome.result.violations.length,
      });
      expect(row?.costUsd).toBeNull();
      expect(row?.origin).toBe("replayed");
      const html = renderHtmlReport(results);
      expect(html).toContain('"expected":true');
      expect(html).toContain('"origin":"replayed"');
      expect(html).toContain('"replayed":true');
      // The run's final result carries the recorded total_cost_usd; the page shows none of it as spent.
      expect(html).not.toMatch(/"costUsd":[\d.]+/);
    });

    it("its run folder says replayed too: evals report shows no cost spent and no live model", async () => {
      const dir = outcome.result.trials[0]?.output_dir as string;
      expect((await readRunFolder(dir)).result?.origin).toBe("replay");
      const out = join(outputRoot, "report");
      const report = spawnSync(
        process.execPath,
        [evalsBin, "report", join(outputRoot, "test-output"), "--out", out],
        { encoding: "utf8", env: { ...process.env, FORCE_COLOR: "0" } },
      );
      expect(report.stderr).toBe("");
      expect(report.status).toBe(0);
      const results = JSON.parse(readFileSync(join(out, "latest.json"), "utf8"));
      expect(results.meta.origins).toEqual({ replay: 1 });
      expect(results.meta.model).toBeUndefined();
      expect(results.summary.cost_usd).toBeUndefined();
      expect(results.cases[0].trials[0]).toMatchObject({ origin: "replay" });
      expect(results.cases[0].trials[0].cost_usd).toBeUndefined();
      expect(results.cases[0].trials[0].recorded_cost_usd).toBeGreaterThan(0);
      const xml = readFileSync(join(out, "junit.xml"), "utf8");
      expect(xml).toContain('<property name="origin" value="replayed"/>');
      expect(xml).not.toMatch(/^cost: /m);
      // evals grade on the folder says it was replayed.
      const graded = spawnSync(process.execPath, [evalsBin, "grade", dir], {
        encoding: "utf8",
        env: { ...process.env, FORCE_COLOR: "0" },
      });
      expect(graded.status).toBe(0);
      expect(graded.stdout).toContain("(run-result, replayed: its cost was the recording's)");
    });
  },
);
