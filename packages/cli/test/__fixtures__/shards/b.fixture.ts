import { describeEval } from "@evals/harness/vitest";
import { calls, run, toolCases } from "./shared.js";

describeEval("beta", {
  data: toolCases("beta", ["Read", "WebFetch", "Bash", "Write"]),
  task: () => run,
  scorers: [calls],
});

describeEval("gamma", {
  data: toolCases("gamma", ["Bash"]),
  task: () => run,
  scorers: [calls],
});
