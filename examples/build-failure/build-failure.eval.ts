import { fileURLToPath } from "node:url";
import { loadCases, scorersForCase } from "@evals/evaluators";
import { replayedRun } from "@evals/examples-kit";
import { describeEval } from "@evals/harness";
import { agents } from "./agents.js";

const suite = "build-failure";
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

for (const evalCase of loadCases(here("./cases/build-failure.yaml"))) {
  describeEval(suite, {
    data: [evalCase],
    scorers: scorersForCase(evalCase),
    task: (_case, trial) =>
      replayedRun(trial, {
        suite,
        evalCase,
        agent: agents[evalCase.id],
        cassettes: here("./cassettes"),
        recordHint: "npx nx run @evals/example-build-failure:record",
      }),
    timeout: 120_000,
  });
}
