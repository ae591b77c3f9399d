import { fileURLToPath } from "node:url";
import { loadCases, scorersForCase } from "@evals/evaluators";
import { replayedRun } from "@evals/examples-kit";
import { describeEval } from "@evals/harness";
import { agents } from "./agents.js";

const suite = "find-todos";
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

for (const evalCase of loadCases(here("./cases/find-todos.yaml"))) {
  describeEval(suite, {
    data: [evalCase],
    // One scorer per evaluator the case runs; its expectedViolations say which verdicts to expect.
    scorers: scorersForCase(evalCase),
    // The real claude CLI in a fresh copy of the fixture, its model replayed from cassettes/.
    task: (_case, trial) =>
      replayedRun(trial, {
        suite,
        evalCase,
        agent: agents[evalCase.id],
        cassettes: here("./cassettes"),
        recordHint: "npx nx run @evals/example-find-todos:record",
      }),
    timeout: 120_000,
  });
}
