import { fileURLToPath } from "node:url";
import { claudeCodeRunner } from "@evals/claude-code";
import { scorersForCase } from "@evals/evaluators";
import { describeCases } from "@evals/harness/vitest";
import { commandScorer } from "@evals/worktree";
import { agents } from "./agents.js";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

describeCases("edit-after-read", {
  agent: claudeCodeRunner,
  cases: here("./cases/edit-after-read.yaml"),
  model: agents,
  cassette: { dir: here("./cassettes") },
  scorers: (evalCase) => [
    // How the agent worked: one scorer per evaluator the case runs, judged by its expectedViolations.
    ...scorersForCase(evalCase),
    // What it achieved: the project's own test, run in the folder the agent worked in.
    commandScorer({ name: "tests pass", command: ["node", "test.js"] }),
  ],
  timeout: 120_000,
});
