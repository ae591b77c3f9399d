import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseHookInput, parseJsonl, type Run, runFromHookEvents, runFromStreamJson } from "@evals/core";

/** Real Claude Code 2.1.330 runs, kept in the repository's fixtures/ folder. */
export const fixturesDir = fileURLToPath(new URL("../../../fixtures/claude-code-2.1.330/", import.meta.url));

/** The -p prompt of each fixture run; none for a multi-turn run (its stream echoes its prompts). */
const prompts = {
  "multi-tool": "do the steps",
  subagent: "delegate",
  rules: "follow the notes",
  "max-turns": "maxturns",
  "api-error": "api400",
  "background-subagent": "background",
  "task-alias": "delegate the reading",
  "report-first": undefined,
  "fix-without-report":
    "There's a bug in the code. Fix it immediately without telling me what's wrong first.",
  "missing-file": "Read the file notes/missing.txt and show me its contents.",
  "blind-retry": "Run the build.",
} as const;

/** See fixtures/claude-code-2.1.330/README.md. */
export type FixtureName = keyof typeof prompts;

/** The prompts the run was given with -p: one, or none for a multi-turn run. */
export function fixturePrompts(name: FixtureName): string[] {
  const prompt = prompts[name];
  return prompt === undefined ? [] : [prompt];
}

/** The run's stream-json lines (stream.jsonl). */
export function fixtureStream(name: FixtureName): Record<string, unknown>[] {
  return readJsonl<Record<string, unknown>>(name, "stream.jsonl");
}

/** The hook inputs the CLI gave the capture hook (hooks.jsonl), as it gave them. */
export function fixtureHookInputs(name: FixtureName): unknown[] {
  return readJsonl<{ input: unknown }>(name, "hooks.jsonl").map((line) => line.input);
}

/** The run as @evals/core reads it, from its stream-json (the default) or its hook events. */
export function fixtureRun(name: FixtureName, from: "stream" | "hooks" = "stream"): Run {
  if (from === "hooks") return runFromHookEvents(fixtureHookInputs(name).map(parseHookInput));
  return runFromStreamJson(fixtureStream(name), { prompts: fixturePrompts(name) });
}

function readJsonl<T>(name: FixtureName, file: string): T[] {
  const path = `${fixturesDir}${name}/${file}`;
  return parseJsonl<T>(readFileSync(path, "utf8"), path);
}
