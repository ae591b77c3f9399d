import { fileURLToPath } from "node:url";
import { describeCases } from "@evals/harness/vitest";
import { OPENCODE_CASSETTE_REPLAY, openCodeRunner } from "@evals/opencode";
import { agents } from "./agents.js";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

// Every case of the file, each trial the real opencode CLI (the cases' agent.cli) in a fresh copy of
// the fixture, running its custom agent file (agent.options.agentName: reviewer), judged by the case's own rules.
// The model's side is replayed from cassettes/; with VCR_MODE=record it is recorded from the
// scripted model (agents.ts) instead. OPENCODE_CASSETTE_REPLAY masks what differs between OpenCode
// runs (sandbox dirs, date, working directory) when a replay matches requests to the recording.
// Two trials run at once (concurrency): each is its own opencode process in its own copy of the
// fixture, and one opencode keeps about 1.3 of this machine's 2 cores busy, so the file takes 8 s
// instead of 11.
describeCases("opencode-agent", {
  agent: openCodeRunner,
  cases: here("./cases/reviewer.yaml"),
  model: agents,
  cassette: { dir: here("./cassettes"), replay: OPENCODE_CASSETTE_REPLAY },
  timeout: 180_000,
  concurrency: 2,
});
