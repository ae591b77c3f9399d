import { fileURLToPath } from "node:url";
import { claudeCodeRunner } from "@evals/claude-code";
import { describeCases } from "@evals/harness/vitest";
import { agents } from "./agents.js";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// Every case of the file, each trial the real claude CLI in a fresh copy of its fixture, judged by
// the case's own rules and expectedViolations. The model's side is replayed from cassettes/; with
// VCR_MODE=record it is recorded from the scripted agents (agents.ts) instead.
describeCases("find-todos", {
  agent: claudeCodeRunner,
  cases: here("./cases/find-todos.yaml"),
  model: agents,
  cassette: { dir: here("./cassettes") },
  timeout: 120_000,
});
