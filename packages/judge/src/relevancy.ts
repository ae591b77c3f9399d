import type { Scorer, Violation } from "@evals/core";
import { z } from "zod";
import { JudgeError } from "./errors.js";
import { type JudgeOptions, judgeScorer } from "./judge-scorer.js";

/**
 * The answer-relevancy judge (the seed's answerRelevancyScorer): the answer is split into its
 * statements, each judged relevant to the question or not; a sample's score is the share of
 * relevant statements.
 */

export const RelevancyVerdictSchema = z.object({
  statements: z
    .array(
      z.object({
        statement: z.string().min(1).describe("One statement of the answer, quoted or closely paraphrased."),
        relevant: z.boolean().describe("Whether it helps answer the request."),
        reasoning: z.string().min(1).describe("Why, in one sentence."),
      }),
    )
    .min(1)
    .describe("Every statement the answer makes, in order."),
  reasoning: z.string().min(1).describe("The overall verdict in one or two sentences."),
});
export type RelevancyVerdict = z.infer<typeof RelevancyVerdictSchema>;

export interface AnswerRelevancyJudgeOptions<Case = unknown> extends JudgeOptions<Case> {
  /** The share of relevant statements a sample needs to pass (default 0.5). */
  threshold?: number;
}

type RelevancyInputs = { question: string; answer: string };

const SYSTEM = [
  "You are an impartial judge. You decide how relevant the final answer of an AI coding agent is to the user's request.",
  "Split the answer into its statements. For each, decide whether it is relevant: it addresses the request, or says plainly why the request could not be done. Off-topic remarks, filler and information nobody asked for are not relevant.",
  "Record your verdict with the record_relevancy_verdict tool.",
].join("\n");

/** A scorer that grades how relevant the run's final answer is to its prompt. */
export function answerRelevancyJudge<Case = unknown>(
  options: AnswerRelevancyJudgeOptions<Case> = {},
): Scorer<Case> {
  const name = options.name ?? "answer-relevancy";
  const threshold = options.threshold ?? 0.5;
  if (!(threshold >= 0 && threshold <= 1))
    throw new Error(`${name}: threshold must be within 0..1, got ${threshold}`);
  return judgeScorer<Case, RelevancyVerdict, RelevancyInputs>(
    {
      name,
      threshold,
      system: SYSTEM,
      tool: {
        name: "record_relevancy_verdict",
        description: "Record each statement of the answer and whether it is relevant to the request.",
        schema: RelevancyVerdictSchema,
      },
      inputs(_input, text) {
        if (!text.question.trim())
          throw new JudgeError("no-input", "the run has no prompt to judge the answer against");
        if (!text.answer.trim()) throw new JudgeError("no-input", "the run has no final answer to judge");
        return { question: text.question, answer: text.answer };
      },
      prompt: (inputs) =>
        ["<request>", inputs.question, "</request>", "<answer>", inputs.answer, "</answer>"].join("\n"),
      score: (verdict) =>
        verdict.statements.filter((entry) => entry.relevant).length / verdict.statements.length,
      explain(samples, _inputs, outcome) {
        const first = samples[0]!;
        const relevant = first.statements.filter((entry) => entry.relevant).length;
        const violations: Violation[] = [
          {
            rule: name,
            type: outcome.passed ? "relevant" : "not-relevant",
            severity: outcome.passed ? "info" : "error",
            message: `${relevant} of ${first.statements.length} statements relevant: ${first.reasoning}`,
            evidence: { reasoning: samples.map((verdict) => verdict.reasoning) },
          },
        ];
        for (const entry of first.statements.filter((statement) => !statement.relevant)) {
          violations.push({
            rule: name,
            type: "irrelevant-statement",
            severity: outcome.passed ? "info" : "warning",
            message: `not relevant: "${entry.statement}": ${entry.reasoning}`,
          });
        }
        return violations;
      },
    },
    options,
  );
}
