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
// Two trials run at once (concurrency): each is its own opencode process, sandbox and copy of the
// fixture, and one opencode run leaves part of a 2-core machine idle, so the file ends sooner.
describeCases("opencode-agent", {
  agent: openCodeRunner,
  cases: here("./cases/reviewer.yaml"),
  model: agents,
  cassette: { dir: here("./cassettes"), replay: OPENCODE_CASSETTE_REPLAY },
  timeout: 180_000,
  concurrency: 2,
});
