import { fileURLToPath } from "node:url";
import { claudeCodeRunner } from "@evals/claude-code";
import { describeCases } from "@evals/harness/vitest";
import { agents } from "./agents.js";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

describeCases("build-failure", {
  agent: claudeCodeRunner,
  cases: here("./cases/build-failure.yaml"),
  model: agents,
  cassette: { dir: here("./cassettes") },
  timeout: 120_000,
});
