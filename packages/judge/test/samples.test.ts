import {
  type MessagesRequest,
  reply,
  type ScriptContext,
  scripted,
  startModelServer,
  toolUse,
} from "@evals/vcr";
import { describe, expect, it } from "vitest";
import { answerRelevancyJudge, combineSamples, rubricJudge } from "../src/index.js";
import type { JudgeMetadata } from "../src/judge-scorer.js";
import { readJudgePrompt, realRun } from "./helpers.js";

/** A judge model whose n-th call meets the criteria listed in `metCriteriaPerCall[n]`. */
function changingJudge(metCriteriaPerCall: number[][]) {
  return (request: MessagesRequest, context: ScriptContext) => {
    const { criteria } = readJudgePrompt(request);
    const met = metCriteriaPerCall[context.call % metCriteriaPerCall.length]!;
    return reply(
      toolUse("record_rubric_verdict", {
        criteria: criteria.map((_, index) => ({
          criterion: index + 1,
          met: met.includes(index + 1),
          reasoning: `sample ${context.call + 1} ${met.includes(index + 1) ? "found" : "did not find"} it`,
        })),
        summary: `sample ${context.call + 1}`,
      }),
    );
  };
}

async function scoreWith(
  script: ReturnType<typeof changingJudge>,
  options: Parameters<typeof rubricJudge>[0],
) {
  const server = await startModelServer({ source: scripted(script) });
  try {
    const judge = rubricJudge({
      baseURL: server.url,
      recording: false,
      criteria: ["first", "second"],
      ...options,
    });
    return { judge, result: await judge.score({ run: realRun() }) };
  } finally {
    await server.close();
  }
}

describe("several judge samples", () => {
  it("combine by mean, and their disagreement is reported", async () => {
    // Sample scores: 1, 0.5, 1.
    const { judge, result } = await scoreWith(changingJudge([[1, 2], [1], [1, 2]]), { samples: 3 });
    expect(judge.threshold).toBe(1);
    expect(result.score).toBeCloseTo(2.5 / 3);
    expect(result.passed).toBe(false);
    const metadata = result.metadata.judge as JudgeMetadata;
    expect(metadata.disagreement).toMatchObject({
      samples: 3,
      passed: 2,
      unanimous: false,
      split: true,
      scores: [1, 0.5, 1],
      spread: 0.5,
    });
    expect(metadata.verdicts).toHaveLength(3);
    const disagree = result.violations.find((violation) => violation.type === "samples-disagree");
    expect(disagree).toMatchObject({ severity: "warning" });
    expect(disagree!.message).toBe(
      "the 3 judge samples disagree: scores 1.00, 0.50, 1.00 (spread 0.50); 2 of 3 passed; combined by mean",
    );
    // Criterion 2 was met by 2 of 3 samples: met, with the tally.
    expect(result.violations.find((violation) => violation.message.startsWith("criterion 2"))!.message).toBe(
      'criterion 2 met: "second": sample 1 found it (met in 2 of 3 samples)',
    );
  });

  it("combine by majority: passes when more than half the samples pass", async () => {
    const { judge, result } = await scoreWith(changingJudge([[1, 2], [1], [1, 2]]), {
      samples: 3,
      combine: "majority",
    });
    expect(judge.threshold).toBeCloseTo(2 / 3);
    expect(result.score).toBeCloseTo(2 / 3);
    expect(result.passed).toBe(true);

    const losing = await scoreWith(changingJudge([[1], [1], [1, 2]]), { samples: 3, combine: "majority" });
    expect(losing.result.score).toBeCloseTo(1 / 3);
    expect(losing.result.passed).toBe(false);
    expect(losing.result.violations[0]).toMatchObject({ type: "criterion-not-met", severity: "error" });
  });

  it("that agree report no disagreement", async () => {
    const { result } = await scoreWith(changingJudge([[1, 2]]), { samples: 2 });
    expect(result).toMatchObject({ passed: true, score: 1 });
    expect((result.metadata.judge as JudgeMetadata).disagreement).toMatchObject({
      unanimous: true,
      split: false,
    });
    expect(result.violations.some((violation) => violation.type === "samples-disagree")).toBe(false);
  });

  it("combineSamples: known values", () => {
    const mean = combineSamples([{ score: 0.2 }, { score: 0.6 }], "mean", 0.5);
    expect(mean).toMatchObject({ score: 0.4, passed: false, threshold: 0.5 });
    expect(mean.disagreement).toMatchObject({ passed: 1, split: true, unanimous: false });
    expect(mean.disagreement.spread).toBeCloseTo(0.4);
    expect(mean.disagreement.stddev).toBeCloseTo(0.2);
    expect(combineSamples([{ score: 0.2 }, { score: 0.6 }], "majority", 0.5)).toMatchObject({
      score: 0.5,
      passed: false,
      threshold: 1,
    });
    expect(combineSamples([{ score: 1 }], "majority", 1)).toMatchObject({
      score: 1,
      passed: true,
      threshold: 1,
    });
    expect(() => combineSamples([], "mean", 1)).toThrow("no samples");
  });
});

describe("the answer-relevancy judge", () => {
  it("scores the share of relevant statements, with the reasoning", async () => {
    const server = await startModelServer({
      source: scripted(() =>
        reply(
          toolUse("record_relevancy_verdict", {
            statements: [
              { statement: "All steps done.", relevant: true, reasoning: "it reports the steps as asked" },
              {
                statement: "The weather is nice.",
                relevant: false,
                reasoning: "nobody asked about the weather",
              },
            ],
            reasoning: "half of the answer is about the task",
          }),
        ),
      ),
    });
    try {
      const judge = answerRelevancyJudge({
        baseURL: server.url,
        recording: false,
        model: "claude-haiku-5-5",
      });
      expect(judge).toMatchObject({ name: "answer-relevancy", threshold: 0.5 });
      const result = await judge.score({ run: realRun() });
      expect(result).toMatchObject({ passed: true, score: 0.5 });
      expect(result.violations.map((violation) => violation.message)).toEqual([
        "1 of 2 statements relevant: half of the answer is about the task",
        'not relevant: "The weather is nice.": nobody asked about the weather',
      ]);
      // The judge was asked about the run's prompt and its final answer.
      expect(server.interactions[0]!.request.body?.model).toBe("claude-haiku-5-5");
      const sent = JSON.stringify(server.interactions[0]!.request.body);
      expect(sent).toContain("Run the three steps of the checklist");
      expect(sent).toContain("All steps done.");
    } finally {
      await server.close();
    }
  });
});
