import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseJsonl, type Run, runFromStreamJson } from "@evals/core";

/** Real Claude Code 2.1.330 runs, kept in the repo's fixtures/ folder. */
export const fixturesDir = fileURLToPath(new URL("../../../fixtures/claude-code-2.1.330/", import.meta.url));

export function fixtureStream(name: "multi-tool" | "subagent" | "task-alias"): unknown[] {
  const file = `${fixturesDir}${name}/stream.jsonl`;
  return parseJsonl(readFileSync(file, "utf8"), file);
}

/** The fixture's stream-json translated into a Run, as the harness would. */
export function fixtureRun(name: "multi-tool" | "subagent" | "task-alias"): Run {
  const prompt =
    name === "subagent"
      ? "Delegate the echo to a general-purpose subagent"
      : name === "task-alias"
        ? "delegate the reading"
        : "Do the five steps in order";
  return runFromStreamJson(fixtureStream(name), { prompts: [prompt], runId: `fixture-${name}` });
}

/**
 * A real Claude Code 2.1.330 run that ended in an API error: the real CLI against a loopback model
 * answering HTTP 400 "prompt is too long". Its result line says `is_error: true` with
 * `subtype: "success"`, `terminal_reason: "prompt_too_long"`, `api_error_status: 400`.
 */
export function apiErrorRun(): Run {
  const file = fileURLToPath(new URL("./__fixtures__/api-error/stream.jsonl", import.meta.url));
  return runFromStreamJson(parseJsonl(readFileSync(file, "utf8"), file), {
    prompts: ["Say hello"],
    runId: "fixture-api-error",
  });
}
