// What the two shard fixture suites share: a real Claude Code 2.1.330 run (the multi-tool fixture)
// as every trial's run, and a scorer that passes when the case's tool was called.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { evaluatorResult, parseJsonl, runFromStreamJson, type Scorer } from "@evals/core";

const file = fileURLToPath(new URL("../../../../../fixtures/claude-code-2.1.330/multi-tool/stream.jsonl", import.meta.url));
export const run = runFromStreamJson(parseJsonl(readFileSync(file, "utf8"), file), {
  prompts: ["Do the five steps in order"],
});

export interface ToolCase {
  id: string;
  name: string;
  input: string;
  tool: string;
}

export const calls: Scorer<ToolCase> = {
  name: "calls-tool",
  threshold: 1,
  score: ({ run: trialRun, case: evalCase }) => {
    const ok = trialRun.events.some((event) => event.type === "tool_call" && event.name === evalCase?.tool);
    return evaluatorResult({
      evaluator: "calls-tool",
      passed: ok,
      score: ok ? 1 : 0,
      violations: ok
        ? []
        : [{ rule: "calls-tool", type: "tool-not-called", severity: "error", message: `${evalCase?.tool} was never called` }],
    });
  },
};

export const toolCases = (suite: string, tools: string[]): ToolCase[] =>
  tools.map((tool, n) => ({ id: `${suite}-${n + 1}`, name: `${suite} calls ${tool} (${n + 1})`, input: "go", tool }));
