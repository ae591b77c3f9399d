import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type AgentRunResult, parseJsonl, runFromStreamJson } from "@evals/core";

/** Real Claude Code 2.1.330 runs, kept in the repo's fixtures/ folder. */
export const fixturesDir = fileURLToPath(new URL("../../../fixtures/claude-code-2.1.330/", import.meta.url));

export function fixtureStream(name: "multi-tool" | "subagent"): unknown[] {
  const file = `${fixturesDir}${name}/stream.jsonl`;
  return parseJsonl(readFileSync(file, "utf8"), file);
}

/** An AgentRunResult built from a real captured run, as runAgent would return it. */
export function fixtureResult(
  name: "multi-tool" | "subagent" = "multi-tool",
  prompt = "do the steps",
): AgentRunResult {
  return {
    run_id: `run-${name}`,
    output_dir: `/tmp/test-output/run-${name}`,
    run: runFromStreamJson(fixtureStream(name), { prompts: [prompt], runId: `run-${name}` }),
    exit_code: 0,
    timed_out: false,
    duration_ms: 1234,
    origin: "live",
  };
}
