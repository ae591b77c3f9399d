import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseJsonl } from "@evals/core";

/** Real Claude Code 2.1.330 runs, kept in the repo's fixtures/ folder. */
export const fixturesDir = fileURLToPath(new URL("../../../fixtures/claude-code-2.1.330/", import.meta.url));

/** See fixtures/claude-code-2.1.330/README.md. */
export type FixtureName =
  | "multi-tool"
  | "subagent"
  | "rules"
  | "background-subagent"
  | "api-error"
  | "max-turns"
  | "task-alias";

export function fixtureStream(name: FixtureName): Record<string, unknown>[] {
  const file = `${fixturesDir}${name}/stream.jsonl`;
  return parseJsonl(readFileSync(file, "utf8"), file);
}
