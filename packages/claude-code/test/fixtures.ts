import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type HookInput, parseJsonl } from "@evals/core";

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

/** The prompt each fixture run was given with -p. */
export const fixturePrompt: Record<FixtureName, string> = {
  "multi-tool": "do the steps",
  subagent: "delegate",
  rules: "follow the notes",
  "max-turns": "maxturns",
  "api-error": "api400",
  "background-subagent": "background",
  "task-alias": "delegate the reading",
};

export function fixtureHookInputs(name: FixtureName): HookInput[] {
  const file = `${fixturesDir}${name}/hooks.jsonl`;
  return parseJsonl<{ input: HookInput }>(readFileSync(file, "utf8"), file).map((line) => line.input);
}

export function fixtureStream(name: FixtureName): Record<string, unknown>[] {
  const file = `${fixturesDir}${name}/stream.jsonl`;
  return parseJsonl(readFileSync(file, "utf8"), file);
}
