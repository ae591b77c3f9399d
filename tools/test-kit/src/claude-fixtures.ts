import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Real Claude Code 2.1.330 runs, kept in the repository's fixtures/ folder. */
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

/** The run's stream-json lines (stream.jsonl). */
export function fixtureStream(name: FixtureName): Record<string, unknown>[] {
  return readJsonl<Record<string, unknown>>(`${fixturesDir}${name}/stream.jsonl`);
}

/** The hook inputs the CLI gave the capture hook (hooks.jsonl), as it gave them. */
export function fixtureHookInputs(name: FixtureName): unknown[] {
  return readJsonl<{ input: unknown }>(`${fixturesDir}${name}/hooks.jsonl`).map((line) => line.input);
}

function readJsonl<T>(file: string): T[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .flatMap((line, index) => {
      if (line.trim() === "") return [];
      try {
        return [JSON.parse(line) as T];
      } catch (error) {
        throw new Error(`${file}:${index + 1}: not JSON: ${(error as Error).message}`);
      }
    });
}
