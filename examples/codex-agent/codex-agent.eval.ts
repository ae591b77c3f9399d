import { fileURLToPath } from "node:url";
import { codexRunner } from "@evals/codex";
import { describeCases } from "@evals/harness/vitest";
import { scriptedResponses } from "@evals/vcr";
import { models } from "./models.js";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// Every case of the file, each trial the real codex CLI (the cases' agent.cli: @evals/codex) in a
// fresh copy of the fixture, judged by the case's own rules. The model's side is replayed from
// cassettes/ (OpenAI Responses API recordings); with VCR_MODE=record it is recorded from the scripted
// model (models.ts) instead. The replay masks what differs between two Codex runs by itself (the
// working directory, CODEX_HOME, the date, its per-run ids).
describeCases("codex-agent", {
  cases: here("./cases/codex.yaml"),
  agent: codexRunner,
  model: (c) => scriptedResponses(models[c.id]!),
  cassette: { dir: here("./cassettes") },
  timeout: 180_000,
});
