import { fileURLToPath } from "node:url";
import { loadCases, scorersForCase } from "@evals/evaluators";
import { replayedRun } from "@evals/examples-kit";
import { describeEval } from "@evals/harness";
import { commandScorer } from "@evals/worktree";
import { agents } from "./agents.js";

const suite = "delegation";
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

for (const evalCase of loadCases(here("./cases/delegation.yaml"))) {
  describeEval(suite, {
    data: [evalCase],
    scorers: [
      ...scorersForCase(evalCase),
      // The outcome, whoever wrote it: CHANGELOG.md has the new section above the old one.
      commandScorer({
        name: "changelog has 1.2.0",
        command: "grep -n '^## ' CHANGELOG.md | head -1 | grep -q '## 1.2.0'",
      }),
    ],
    task: (_case, trial) =>
      replayedRun(trial, {
        suite,
        evalCase,
        agent: agents[evalCase.id],
        cassettes: here("./cassettes"),
        recordHint: "npx nx run @evals/example-delegation:record",
      }),
    timeout: 120_000,
  });
}
