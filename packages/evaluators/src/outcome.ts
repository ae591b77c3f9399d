import {
  type AgentRunResult,
  type EvaluatorResult,
  evaluatorResult,
  RUN_OUTCOMES,
  type Run,
  type RunOutcome,
  type RunOutcomeKind,
  runOutcome,
  type Scorer,
} from "@evals/core";
import { z } from "zod";

/**
 * How a run ended, judged. Every case fails on a bad outcome unless it says which outcome it expects:
 * a run that ended in an API error, at its maximum turns, with any other error result, killed, with a
 * nonzero exit code, without a result line, or timed out did not do its job, whatever else it did.
 * Pure functions over a Run or an AgentRunResult, so the harness and `evals grade` give one verdict.
 */

/**
 * The outcome a case expects: one of RUN_OUTCOMES, `failure` (any but success), `any` (not judged),
 * or a list of them. Default `success`.
 */
export const ExpectedOutcomeSchema = z.union([
  z.enum([...RUN_OUTCOMES, "failure", "any"]),
  z.array(z.enum([...RUN_OUTCOMES, "failure"])).min(1),
]);
export type ExpectedOutcome = z.infer<typeof ExpectedOutcomeSchema>;

/** The verdict on a run's outcome against what was expected. */
export interface OutcomeJudgement {
  passed: boolean;
  outcome: RunOutcome;
  expected: ExpectedOutcome;
  /** Why it passed or failed, in English. */
  reason: string;
}

const KIND_WORDS: Record<RunOutcomeKind | "failure", string> = {
  success: "succeed",
  api_error: "end in an API error",
  max_turns: "stop at its maximum number of turns",
  error: "end with an error result",
  killed: "be killed",
  exit_code: "exit with a nonzero code",
  no_result: "end without a result line",
  timeout: "time out",
  failure: "fail",
};

/** Whether an outcome is one of those expected. */
export function outcomeMatches(kind: RunOutcomeKind, expected: ExpectedOutcome): boolean {
  const allowed = Array.isArray(expected) ? expected : [expected];
  return allowed.some(
    (item) => item === "any" || item === kind || (item === "failure" && kind !== "success"),
  );
}

/**
 * Judges how a run ended against the outcome expected (default `success`). A run whose outcome is not
 * known (built from hook events alone) passes, saying so.
 */
export function judgeOutcome(
  input: Run | AgentRunResult,
  expected: ExpectedOutcome = "success",
): OutcomeJudgement {
  const outcome = runOutcome(input);
  const judged = (passed: boolean, reason: string): OutcomeJudgement => ({
    passed,
    outcome,
    expected,
    reason,
  });
  if (expected === "any") return judged(true, `${outcome.reason} (any outcome is accepted)`);
  if (outcome.kind === undefined) return judged(true, outcome.reason);
  if (outcomeMatches(outcome.kind, expected)) {
    return judged(true, expected === "success" ? outcome.reason : `${outcome.reason}, as expected`);
  }
  if (expected === "success") return judged(false, outcome.reason);
  const wanted = (Array.isArray(expected) ? expected : [expected])
    .map((item) => KIND_WORDS[item])
    .join(" or ");
  return judged(false, `the run was expected to ${wanted}, but ${outcome.reason}`);
}

/** The id of the outcome evaluator (its violations' rule). */
export const OUTCOME_EVALUATOR = "outcome";

/** A judgement as an evaluator result: one error violation (type = the outcome) when it failed. */
export function outcomeResult(judgement: OutcomeJudgement): EvaluatorResult {
  const kind = judgement.outcome.kind ?? "unknown";
  const final = judgement.outcome.final;
  return evaluatorResult({
    evaluator: OUTCOME_EVALUATOR,
    passed: judgement.passed,
    score: judgement.passed ? 1 : 0,
    violations: judgement.passed
      ? []
      : [
          {
            rule: OUTCOME_EVALUATOR,
            type: kind.replace(/_/g, "-"),
            severity: "error",
            message: judgement.reason,
            ...(final ? { pointer: { event_index: final.index, agent: final.agent } } : {}),
          },
        ],
    evidence: [{ type: judgement.passed ? "outcome" : "bad-outcome", description: judgement.reason }],
    metadata: { outcome: kind, expected: judgement.expected },
  });
}

/** The outcome a case expects, from its `outcome` field, when it has a valid one. */
export function expectedOutcomeOf(caseValue: unknown): ExpectedOutcome | undefined {
  if (!caseValue || typeof caseValue !== "object" || !("outcome" in caseValue)) return undefined;
  const parsed = ExpectedOutcomeSchema.safeParse((caseValue as { outcome?: unknown }).outcome);
  return parsed.success ? parsed.data : undefined;
}

/**
 * The outcome as a scorer named "outcome": the outcome given here, else the case's `outcome` field,
 * else the one the harness expects (describeEval's `outcome` option), else `success`. Judges the whole AgentRunResult (exit code, timeout) when it has one.
 */
export function outcomeScorer(options: { expected?: ExpectedOutcome } = {}): Scorer {
  if (options.expected !== undefined) ExpectedOutcomeSchema.parse(options.expected);
  return {
    name: OUTCOME_EVALUATOR,
    score({ run, result, case: caseValue, expectedOutcome }) {
      const expected =
        options.expected ??
        expectedOutcomeOf(caseValue) ??
        expectedOutcomeOf({ outcome: expectedOutcome }) ??
        "success";
      return outcomeResult(judgeOutcome(result ?? run, expected));
    },
  };
}
