import type { Scorer, ScorerInput, Violation } from "@evals/core";
import { z } from "zod";
import { JudgeError } from "./errors.js";
import { type JudgeOptions, judgeScorer } from "./judge-scorer.js";

/**
 * The rubric judge: plain-language criteria, each judged met or not met with a reason. A sample's
 * score is the share of criteria met; by default a run passes when every criterion is met.
 */

export const RubricVerdictSchema = z.object({
  criteria: z
    .array(
      z.object({
        criterion: z.number().int().min(1).describe("The criterion's number in the rubric (1, 2, ...)."),
        met: z.boolean().describe("Whether the answer meets the criterion."),
        reasoning: z
          .string()
          .min(1)
          .describe("Why, in one or two sentences, quoting the answer where you can."),
      }),
    )
    .describe("One entry per criterion of the rubric, in order."),
  summary: z.string().min(1).describe("The overall verdict in one or two sentences."),
});
export type RubricVerdict = z.infer<typeof RubricVerdictSchema>;

export interface RubricJudgeOptions<Case = unknown> extends JudgeOptions<Case> {
  /**
   * The criteria, in plain language: a list, or a function of the case. Default: the case's
   * `judge.rubric` (the @evals/evaluators case field).
   */
  criteria?: string[] | ((testCase: Case | undefined) => string[] | undefined);
  /** The share of criteria a sample must meet to pass (default 1: all of them). */
  threshold?: number;
}

type RubricInputs = { question: string; answer: string; criteria: string[] };

const SYSTEM = [
  "You are an impartial judge. You grade the final answer an AI coding agent gave to a user's request, against a rubric of criteria written in plain language.",
  "Judge each criterion on its own, only by what the answer says (you cannot see what the agent did). A criterion the answer does not clearly meet is not met.",
  "Give a short reason for each criterion, quoting the answer where you can, then record your verdict with the record_rubric_verdict tool: one entry per criterion, in order.",
].join("\n");

/** The criteria for a case: the option, else the case's `judge.rubric`. */
function criteriaFor<Case>(
  options: RubricJudgeOptions<Case>,
  testCase: Case | undefined,
): string[] | undefined {
  if (typeof options.criteria === "function") return options.criteria(testCase);
  if (options.criteria) return options.criteria;
  const judge = (testCase as { judge?: { rubric?: unknown } } | undefined)?.judge;
  return Array.isArray(judge?.rubric) ? (judge.rubric as string[]) : undefined;
}

/** A scorer that grades the run's final answer against plain-language criteria. */
export function rubricJudge<Case = unknown>(options: RubricJudgeOptions<Case> = {}): Scorer<Case> {
  const name = options.name ?? "rubric";
  const threshold = options.threshold ?? 1;
  if (!(threshold >= 0 && threshold <= 1))
    throw new Error(`${name}: threshold must be within 0..1, got ${threshold}`);
  return judgeScorer<Case, RubricVerdict, RubricInputs>(
    {
      name,
      threshold,
      system: SYSTEM,
      tool: {
        name: "record_rubric_verdict",
        description: "Record whether the answer meets each criterion of the rubric, with the reason.",
        schema: RubricVerdictSchema,
      },
      inputs(input: ScorerInput<Case>, text) {
        const criteria = (criteriaFor(options, input.case) ?? []).map((c) => c.trim()).filter(Boolean);
        if (criteria.length === 0) {
          throw new JudgeError(
            "no-input",
            "no rubric: give the case a judge.rubric (a list of criteria) or the scorer `criteria`",
          );
        }
        if (!text.answer.trim()) throw new JudgeError("no-input", "the run has no final answer to judge");
        return { question: text.question, answer: text.answer, criteria };
      },
      prompt: (inputs) =>
        [
          "<request>",
          inputs.question,
          "</request>",
          "<answer>",
          inputs.answer,
          "</answer>",
          "<rubric>",
          ...inputs.criteria.map((criterion, index) => `${index + 1}. ${criterion}`),
          "</rubric>",
        ].join("\n"),
      check(verdict, inputs) {
        const numbers = verdict.criteria.map((entry) => entry.criterion).sort((a, b) => a - b);
        const expected = inputs.criteria.map((_, index) => index + 1);
        if (numbers.join(",") !== expected.join(",")) {
          throw new JudgeError(
            "malformed",
            `the judge model's verdict covers criteria [${numbers.join(", ")}], but the rubric has [${expected.join(", ")}]`,
          );
        }
      },
      score: (verdict, inputs) =>
        verdict.criteria.filter((entry) => entry.met).length / inputs.criteria.length,
      explain(samples, inputs, outcome) {
        const violations: Violation[] = inputs.criteria.map((criterion, index) => {
          const votes = samples.map(
            (verdict) => verdict.criteria.find((entry) => entry.criterion === index + 1)!,
          );
          const metVotes = votes.filter((vote) => vote.met).length;
          const met = metVotes * 2 > votes.length;
          // The reasoning of a sample on the winning side (the first one).
          const reason = votes.find((vote) => vote.met === met)?.reasoning ?? votes[0]!.reasoning;
          const tally = votes.length > 1 ? ` (met in ${metVotes} of ${votes.length} samples)` : "";
          return {
            rule: name,
            type: met ? "criterion-met" : "criterion-not-met",
            severity: met ? "info" : outcome.passed ? "warning" : "error",
            message: `criterion ${index + 1} ${met ? "met" : "not met"}: "${criterion}": ${reason}${tally}`,
            evidence: {
              criterion: index + 1,
              text: criterion,
              met,
              votes: votes.map((vote) => vote.met),
              reasoning: votes.map((vote) => vote.reasoning),
            },
          } satisfies Violation;
        });
        // Failed criteria first: the console's one-line summary shows the first ones.
        violations.sort((a, b) => rank(a.severity) - rank(b.severity));
        violations.push({
          rule: name,
          type: "judge-summary",
          severity: "info",
          message: `the judge's summary: ${samples[0]!.summary}`,
          evidence: { summaries: samples.map((verdict) => verdict.summary) },
        });
        return violations;
      },
    },
    options,
  );
}

function rank(severity: Violation["severity"]): number {
  return severity === "error" ? 0 : severity === "warning" ? 1 : 2;
}
