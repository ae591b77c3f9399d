import { fileURLToPath } from "node:url";
import { loadCases, scorersForCase } from "@evals/evaluators";
import { replayedRun } from "@evals/examples-kit";
import { describeEval } from "@evals/harness";
import { commandScorer } from "@evals/worktree";
import { agents } from "./agents.js";

const suite = "edit-after-read";
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

for (const evalCase of loadCases(here("./cases/edit-after-read.yaml"))) {
  describeEval(suite, {
    data: [evalCase],
    scorers: [
      // How the agent worked: one scorer per evaluator the case runs, judged by its expectedViolations.
      ...scorersForCase(evalCase),
      // What it achieved: the project's own test, run in the folder the agent worked in.
      commandScorer({ name: "tests pass", command: ["node", "test.js"] }),
    ],
    task: (_case, trial) =>
      replayedRun(trial, {
        suite,
        evalCase,
        agent: agents[evalCase.id],
        cassettes: here("./cassettes"),
        recordHint: "npx nx run @evals/example-edit-after-read:record",
      }),
    timeout: 120_000,
  });
}
