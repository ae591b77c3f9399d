import { fileURLToPath } from "node:url";
import { geminiRunner } from "@evals/gemini-cli";
import { describeCases } from "@evals/harness/vitest";
import { scriptedGemini } from "@evals/vcr";
import { agents } from "./agents.js";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// Every case of the file, each trial the real gemini CLI (through @evals/gemini-cli, hermetic) in a
// fresh copy of the fixture, judged by the case's own rules. The model's side is replayed from
// cassettes/ (Gemini API recordings); with VCR_MODE=record it is recorded from the scripted Gemini
// model of agents.ts instead.
describeCases("gemini-agent", {
  cases: here("./cases/gemini.yaml"),
  agent: geminiRunner,
  model: (evalCase) => {
    const script = agents[evalCase.id];
    if (!script) throw new Error(`agents.ts has no script for case ${evalCase.id}`);
    return scriptedGemini(script);
  },
  cassette: { dir: here("./cassettes") },
  timeout: 180_000,
});
