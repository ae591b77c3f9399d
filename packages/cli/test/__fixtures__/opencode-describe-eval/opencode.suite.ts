// The suite opencode-describe-eval.test.ts runs through vitest's own API: describeEval with agent openCodeRunner,
// so every trial's runAgent is the real opencode CLI. Not run directly (tests match *.test.ts).
import { type EvalCaseInput, scorersForCase } from "@evals/evaluators";
import { describeEval } from "@evals/harness/vitest";
import { openCodeRunner } from "@evals/opencode";
import { countToolResults, reply, text, toolUse } from "@evals/vcr";

const lists: EvalCaseInput = {
  id: "lists",
  prompt: "list the files",
  behavior: { mustUseTools: ["bash"], expectedResponse: { contains: "a.txt" } },
  expectedTrajectory: [{ tool: "Bash", args: { command: "ls" } }],
};
const noShell: EvalCaseInput = { id: "no-shell", prompt: "list the files", behavior: { mustNotUseTools: ["Bash"] } };

describeEval("opencode", {
  data: [
    { name: "lists", input: "list the files", evalCase: lists },
    { name: "no-shell", input: "list the files", evalCase: noShell },
  ],
  agent: openCodeRunner,
  model: () => (request) =>
    countToolResults(request) === 0
      ? reply(toolUse("bash", { command: "ls", description: "List files" }))
      : reply(text("Files: a.txt")),
  task: (prompt, { runAgent }) => runAgent({ prompt, cwd: process.env.OC_FIXTURE ?? "." }),
  scorers: (value) => scorersForCase(value.evalCase),
  timeout: 120_000,
});
