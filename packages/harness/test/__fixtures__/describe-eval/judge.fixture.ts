import { evaluatorResult, type Scorer } from "@evals/core";

(globalThis as { judgeLoaded?: boolean }).judgeLoaded = true;

/** Stands in for an LLM judge: always 0.9. */
export const judge: Scorer = {
  name: "llm-judge",
  threshold: 0.5,
  score: () => evaluatorResult({ evaluator: "llm-judge", passed: true, score: 0.9 }),
};
