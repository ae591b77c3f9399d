import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Scorer } from "@evals/core";
import { caseResult, formatCasesTable, writeReports } from "@evals/logging";
import { scripted, startModelServer } from "@evals/vcr";
import { afterAll, describe, expect, it } from "vitest";
import { rubricJudge } from "../src/index.js";
import { keywordJudge, realRun } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "judge-reports-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A case result the way describeEval builds one from a trial's scorer verdicts. */
async function judgedCase(judge: Scorer) {
  const result = await judge.score({ run: realRun(), case: { id: "checklist" } });
  const passed = result.score >= (judge.threshold ?? 1);
  return caseResult({
    id: "checklist",
    name: "runs the checklist",
    suite: "judged suite",
    trials: [
      {
        status: passed ? "passed" : "failed",
        scores: [{ scorer: judge.name, score: result.score, passed, threshold: judge.threshold! }],
        violations: result.violations.map((violation) => ({ ...violation, scorer: judge.name })),
      },
    ],
  });
}

describe("the judge's reasoning in @evals/logging's outputs", () => {
  it("shows in the console table, the JSON results, JUnit and the HTML report", async () => {
    const server = await startModelServer({ source: scripted(keywordJudge) });
    let judged: Awaited<ReturnType<typeof judgedCase>>;
    try {
      judged = await judgedCase(
        rubricJudge({
          baseURL: server.url,
          recording: false,
          criteria: ['Says "done"', 'Mentions the "checklist"'],
        }),
      );
    } finally {
      await server.close();
    }
    const reason = 'criterion 2 not met: "Mentions the "checklist"": the answer never says "checklist"';

    const table = formatCasesTable([judged], { width: 400 });
    expect(table).toContain("rubric");
    // The failing row leads with the rule that failed; the score it explains is not repeated.
    expect(table).toContain(`→ rubric/criterion-not-met: ${reason}`);
    expect(table).toContain("0.50 ✗");

    const { files } = writeReports([judged], { dir, suite: "judged suite", includeRuns: "none" });
    const json = JSON.parse(readFileSync(files.latest, "utf8"));
    const messages = json.cases[0].violations.map((violation: { message: string }) => violation.message);
    expect(messages).toContain(reason);
    expect(messages).toContain('criterion 1 met: "Says "done"": the answer says "done"');
    expect(messages).toContain("the judge's summary: graded 2 criteria");

    const junit = readFileSync(files.junit!, "utf8");
    expect(junit).toContain("the answer never says &quot;checklist&quot;");
    const html = readFileSync(files.html!, "utf8");
    expect(html).toContain("the answer never says");
  });
});
