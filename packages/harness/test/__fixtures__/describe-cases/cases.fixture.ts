import { resolve } from "node:path";
import { evaluatorResult, type Scorer } from "@evals/core";
import { scorersForCase } from "@evals/evaluators";
import { reply, text } from "@evals/vcr";
import { claudeCodeRunner } from "@evals/claude-code";
import { describeCases } from "../../../src/vitest.js";

const claudeBin = resolve(__dirname, "../../../../../node_modules/.bin/claude");

/** A scorer only the says-bye case gets: it fails, so that case fails and the other passes. */
const neverBye: Scorer = {
  name: "never bye",
  score: () => evaluatorResult({ evaluator: "never bye", score: 0, passed: false }),
};

describeCases("two cases", {
  cases: resolve(__dirname, "cases/two.yaml"),
  model: {
    "says-hello": () => reply(text("hello there")),
    "says-bye": () => reply(text("bye now")),
  },
  scorers: (evalCase) => [...scorersForCase(evalCase), ...(evalCase.id === "says-bye" ? [neverBye] : [])],
  runAgent: { options: { claudeBin } },
  agent: claudeCodeRunner,
  requiresAgent: true,
  trials: 2,
  outputRoot: process.env.EVALS_TEST_OUTPUT_ROOT as string,
});
