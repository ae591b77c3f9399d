import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AgentRunResult, type Run, runFromStreamJson, runOutcome } from "@evals/core";
import { fixtureRun, fixtureStream } from "@evals/test-kit/claude-fixtures";
import { describe, expect, it } from "vitest";
import { CaseFileError, evaluate, judgeOutcome, loadCase, outcomeScorer, parseCase } from "../src/index.js";

/** A real run as runAgent returned it: its exit code from the fixture's exit-code file. */
function asResult(run: Run, fields: Partial<AgentRunResult>): AgentRunResult {
  return { run_id: "r", run, exit_code: 0, timed_out: false, duration_ms: 1, origin: "live", ...fields };
}

describe("judgeOutcome on real 2.1.330 runs", () => {
  it("fails an API error (subtype success, is_error, HTTP 400) and says so in English", () => {
    const run = fixtureRun("api-error");
    const judgement = judgeOutcome(asResult(run, { exit_code: 1 }));
    expect(judgement.passed).toBe(false);
    expect(judgement.outcome.kind).toBe("api_error");
    expect(judgement.reason).toBe(
      "the API returned HTTP 400 (invalid_request_error), which ended the run: API Error: 400 messages.0.content: invalid request for this test",
    );
    expect(judgement.reason).not.toMatch(/success/);
    // From the Run alone too: the result line says it.
    expect(judgeOutcome(run).outcome.kind).toBe("api_error");
  });

  it("fails a run that stopped at max turns, unless the case expects it", () => {
    const result = asResult(fixtureRun("max-turns"), { exit_code: 1 });
    expect(judgeOutcome(result)).toMatchObject({
      passed: false,
      reason: "the agent stopped at the maximum of 2 turns",
    });
    expect(judgeOutcome(result, "max_turns")).toMatchObject({
      passed: true,
      reason: "the agent stopped at the maximum of 2 turns, as expected",
    });
    expect(judgeOutcome(result, ["max_turns", "timeout"]).passed).toBe(true);
    expect(judgeOutcome(result, "failure").passed).toBe(true);
    expect(judgeOutcome(result, "any").passed).toBe(true);
    expect(judgeOutcome(asResult(fixtureRun("multi-tool"), {}), "max_turns")).toMatchObject({
      passed: false,
      reason: "the run was expected to stop at its maximum number of turns, but the run ended normally",
    });
  });

  it("passes a run that ended normally, and a background subagent's run with two result lines", () => {
    expect(judgeOutcome(asResult(fixtureRun("multi-tool"), {}))).toMatchObject({ passed: true });
    expect(runOutcome(asResult(fixtureRun("background-subagent"), {})).kind).toBe("success");
  });

  it("fails a stream without a result line (the run was cut short), from the Run alone", () => {
    const lines = fixtureStream("multi-tool").filter((line) => (line as { type?: string }).type !== "result");
    const run = runFromStreamJson(lines);
    expect(judgeOutcome(run)).toMatchObject({
      passed: false,
      reason: "claude ended without writing a result line",
    });
  });

  it("fails a timeout, a kill and a nonzero exit, when the AgentRunResult tells them", () => {
    const lines = fixtureStream("multi-tool").filter((line) => (line as { type?: string }).type !== "result");
    const cut = runFromStreamJson(lines);
    expect(
      judgeOutcome(
        asResult(cut, {
          exit_code: null,
          timed_out: true,
          error: "the run timed out after 3000 ms and was killed",
        } as never),
      ),
    ).toMatchObject({
      passed: false,
      outcome: { kind: "timeout" },
      reason: "the run timed out after 3000 ms and was killed",
    });
    expect(
      judgeOutcome(asResult(cut, { exit_code: null, error: "claude was killed by SIGKILL" } as never)).reason,
    ).toBe("claude was killed by SIGKILL before it wrote a result line");
    expect(judgeOutcome(asResult(cut, { exit_code: 143 })).reason).toBe(
      "claude exited with code 143 without writing a result line",
    );
    expect(judgeOutcome(asResult(fixtureRun("multi-tool"), { exit_code: 2 }))).toMatchObject({
      passed: false,
      outcome: { kind: "exit_code" },
      reason: "claude exited with code 2 although its result line says success",
    });
  });

  it("does not judge what it cannot know: a run built from hook events alone", () => {
    const judgement = judgeOutcome(fixtureRun("multi-tool", "hooks"));
    expect(judgement.passed).toBe(true);
    expect(judgement.outcome.kind).toBeUndefined();
  });
});

describe("the outcome in cases, evaluate() and scorers", () => {
  it("evaluate() fails a case that asserts nothing when the run ended in an API error", async () => {
    const evaluation = await evaluate(fixtureRun("api-error"), { id: "quiet" });
    expect(evaluation.passed).toBe(false);
    expect(evaluation.reasons[0]).toMatch(/^outcome: api-error: the API returned HTTP 400/);
  });

  it("evaluate() passes a case that expects the agent to stop at max turns", async () => {
    const evaluation = await evaluate(asResult(fixtureRun("max-turns"), { exit_code: 1 }), {
      id: "stops",
      outcome: "max_turns",
      rules: { "execution-balance": false },
    });
    expect(evaluation.verdicts.find((verdict) => verdict.evaluator === "outcome")?.ok).toBe(true);
  });

  it("outcomeScorer reads the case's outcome, and judges the whole result when it has one", async () => {
    const run = fixtureRun("max-turns");
    const scorer = outcomeScorer();
    expect((await scorer.score({ run, case: { outcome: "max_turns" } })).passed).toBe(true);
    const failed = await scorer.score({ run, result: asResult(run, { exit_code: 1 }), case: {} });
    expect(failed.passed).toBe(false);
    expect(failed.violations[0]).toMatchObject({
      rule: "outcome",
      type: "max-turns",
      severity: "error",
      message: "the agent stopped at the maximum of 2 turns",
    });
    expect(() => outcomeScorer({ expected: "maxturns" as never })).toThrow();
  });

  it("a case's outcome field defaults to success, and a wrong one names the file, line and field", () => {
    // Unset means "as the suite says" (default success), so describeEval's outcome option can apply.
    expect(parseCase({ id: "x" }).outcome).toBeUndefined();
    expect(parseCase({ id: "x", outcome: ["max_turns", "timeout"] }).outcome).toEqual([
      "max_turns",
      "timeout",
    ]);
    const dir = mkdtempSync(join(tmpdir(), "outcome-case-"));
    const file = join(dir, "bad.case.yaml");
    writeFileSync(file, "id: bad\nprompt: hi\noutcome: max-turns\n");
    let error: unknown;
    try {
      loadCase(file);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(CaseFileError);
    expect((error as CaseFileError).issues[0]).toMatchObject({ file, line: 3, field: "outcome" });
    expect((error as CaseFileError).message).toMatch(/max_turns/);
  });
});
