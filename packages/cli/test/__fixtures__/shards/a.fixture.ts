import { describeEval } from "@evals/harness/vitest";
import { calls, run, toolCases } from "./shared.js";

describeEval("alpha", {
  data: toolCases("alpha", ["Bash", "Read", "Write", "Edit", "Grep", "Bash", "Glob"]),
  task: () => run,
  scorers: [calls],
  trials: 2,
});
