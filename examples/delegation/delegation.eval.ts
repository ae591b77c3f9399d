import { fileURLToPath } from "node:url";
import { claudeCodeRunner } from "@evals/claude-code";
import { scorersForCase } from "@evals/evaluators";
import { describeCases } from "@evals/harness/vitest";
import { commandScorer } from "@evals/worktree";
import { agents } from "./agents.js";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

describeCases("delegation", {
  agent: claudeCodeRunner,
  cases: here("./cases/delegation.yaml"),
  model: agents,
  cassette: { dir: here("./cassettes") },
  scorers: (evalCase) => [
    ...scorersForCase(evalCase),
    // The outcome, whoever wrote it: CHANGELOG.md has the new section above the old one.
    commandScorer({
      name: "changelog has 1.2.0",
      command: "grep -n '^## ' CHANGELOG.md | head -1 | grep -q '## 1.2.0'",
    }),
  ],
  timeout: 120_000,
});
