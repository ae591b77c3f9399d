import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseJsonl } from "@evals/core";

/** Real Claude Code 2.1.330 runs, kept in the repo's fixtures/ folder. */
export const fixturesDir = fileURLToPath(new URL("../../../fixtures/claude-code-2.1.330/", import.meta.url));

/** What the hook read on stdin, for every hook call of a fixture run, in order. */
export function fixtureHookInputs(name: "multi-tool" | "subagent"): Record<string, unknown>[] {
  const file = `${fixturesDir}${name}/hooks.jsonl`;
  return parseJsonl<{ input: Record<string, unknown> }>(readFileSync(file, "utf8"), file).map(
    (line) => line.input,
  );
}
