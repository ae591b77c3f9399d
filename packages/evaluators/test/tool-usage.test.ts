import type { EvaluatorResult, Run, RunEventInput } from "@evals/core";
import { fixtureRun } from "@evals/test-kit/claude-fixtures";
import { describe, expect, it } from "vitest";
import { newRuleContext, type RuleOutcome, resultOf } from "../src/define-rule.js";
import { parseShell, suggestTool, toolUsage } from "../src/index.js";
import { TOOL_USAGE, toolUsageRule } from "../src/rules/tool-usage.js";
import { RunStreamVisit } from "../src/run-visit.js";
import { script, streamedCheck, types } from "./helpers.js";
import { parallelCalls } from "./parallel-calls.js";

const suggestion = (command: string) => {
  const [first] = parseShell(command);
  return first ? suggestTool(first) : undefined;
};

describe("tool-usage", () => {
  it("has nothing to say about the real runs (ls and echo have no dedicated tool)", () => {
    expect(toolUsage(fixtureRun("multi-tool")).violations).toEqual([]);
    expect(toolUsage(fixtureRun("subagent")).violations).toEqual([]);
  });

  it("does not suggest Grep or Glob to an agent that was not offered them (real run)", () => {
    // claude 2.1.330's init line offers Bash, Read, Write... but no Grep or Glob; the agent ran
    // `grep -rn TODO .` and `find . -name "*.txt"`.
    const run = fixtureRun("rules");
    expect(run.tools).not.toContain("Grep");
    const result = toolUsage(run);
    expect(result.violations).toEqual([]);
    expect(result.score).toBe(1);
    expect(result.metadata).toMatchObject({ bashCalls: 2, flaggedCalls: 0, notOffered: ["Glob", "Grep"] });
    // The same calls by an agent that had Grep and Glob are flagged.
    const offered = toolUsage({ ...run, tools: [...(run.tools ?? []), "Grep", "Glob"] });
    expect(types(offered)).toEqual(["bash-instead-of-grep", "bash-instead-of-glob"]);
  });

  it("does not warn about grep/find on a hooks-only run, which does not say what was offered (real runs)", () => {
    // The same real run from its hooks alone: no init line, so no tool list.
    const run = fixtureRun("rules", "hooks");
    expect(run.tools).toBeUndefined();
    const result = toolUsage(run);
    expect(result.violations.map((v) => [v.type, v.severity])).toEqual([
      ["bash-instead-of-grep", "info"],
      ["bash-instead-of-glob", "info"],
    ]);
    expect(result.violations[0]?.message).toBe(
      'Bash "grep -rn TODO ." could be Grep {"pattern":"TODO","path":"."} if the agent was offered Grep: the run does not say which tools were offered (hooks do not tell)',
    );
    expect(result.score).toBe(1);
    expect(result.metadata).toMatchObject({ bashCalls: 2, flaggedCalls: 0, offerUnknown: ["Glob", "Grep"] });
    // A case can still ask for a warning.
    expect(
      toolUsage(run, { severity: { "bash-instead-of-grep": "warning" } }).violations.map((v) => v.severity),
    ).toEqual(["warning", "info"]);
    // The multi-tool run's hooks (ls, echo) have nothing to say either way.
    expect(toolUsage(fixtureRun("multi-tool", "hooks")).violations).toEqual([]);
  });

  it("suggests the dedicated tool for each Bash antipattern", () => {
    expect(suggestion("cat src/a.ts")).toEqual({
      tool: "Read",
      input: { file_path: "src/a.ts" },
      instead_of: "cat",
    });
    expect(suggestion("head -n 20 README.md")).toEqual({
      tool: "Read",
      input: { file_path: "README.md", limit: 20 },
      instead_of: "head",
    });
    expect(suggestion("tail -f log.txt")?.tool).toBe("Read");
    expect(suggestion('find src -name "*.test.ts"')).toEqual({
      tool: "Glob",
      input: { pattern: "**/*.test.ts", path: "src" },
      instead_of: "find",
    });
    expect(suggestion("grep -rn TODO src")).toEqual({
      tool: "Grep",
      input: { pattern: "TODO", path: "src" },
      instead_of: "grep",
    });
    expect(suggestion("rg -e 'fn main' crates")).toEqual({
      tool: "Grep",
      input: { pattern: "fn main", path: "crates" },
      instead_of: "rg",
    });
    expect(suggestion("sed -i 's/a/b/' src/a.ts")).toEqual({
      tool: "Edit",
      input: { file_path: "src/a.ts" },
      instead_of: "sed",
    });
    expect(suggestion("awk -i inplace '{print}' data.csv")?.tool).toBe("Edit");
    expect(suggestion("sed -n '1,10p' notes.txt")?.tool).toBe("Read");
    expect(suggestion('echo "hello" > greeting.txt')).toEqual({
      tool: "Write",
      input: { file_path: "greeting.txt" },
      instead_of: "echo",
    });
    expect(suggestion("cat <<'EOF' > config.json\n{}\nEOF")).toEqual({
      tool: "Write",
      input: { file_path: "config.json" },
      instead_of: "cat",
    });
  });

  it("leaves alone what has no better tool: pipes, copies, find -delete, plain echo", () => {
    expect(suggestion("echo done")).toBeUndefined();
    expect(suggestion("cat a.txt > b.txt")).toBeUndefined();
    expect(suggestion("find . -name '*.tmp' -delete")).toBeUndefined();
    expect(suggestion("npm test")).toBeUndefined();
    const piped = parseShell("git log --oneline | head -5 | grep fix");
    expect(piped.map(suggestTool)).toEqual([undefined, undefined, undefined]);
  });

  it("reports each antipattern with the suggested call, as a warning by default", () => {
    const run = {
      ...script()
        .call("Bash", { command: "cat package.json && grep -r useState src" })
        .call("Bash", { command: "npm test" })
        .call("Read", { file_path: "a.ts" })
        .build(),
      tools: ["Bash", "Read", "Grep", "Glob", "Write", "Edit"],
    };
    const result = toolUsage(run);
    expect(types(result)).toEqual(["bash-instead-of-read", "bash-instead-of-grep"]);
    expect(result.violations[0]).toMatchObject({ severity: "warning", pointer: { tool_use_id: "toolu_1" } });
    expect(result.violations[1]?.evidence).toMatchObject({
      suggestion: { tool: "Grep", input: { pattern: "useState", path: "src" } },
    });
    expect(result.passed).toBe(true);
    expect(result.score).toBe(0.5);
    expect(toolUsage(run, { severity: "error" }).passed).toBe(false);
    expect(types(toolUsage(run, { allow: ["grep"] }))).toEqual(["bash-instead-of-read"]);
  });

  it("still warns about cat on a run that does not say what was offered: Read is always there", () => {
    const run = script().call("Bash", { command: "cat package.json && grep -r useState src" }).build();
    expect(run.tools).toBeUndefined();
    const result = toolUsage(run);
    expect(result.violations.map((v) => [v.type, v.severity])).toEqual([
      ["bash-instead-of-read", "warning"],
      ["bash-instead-of-grep", "info"],
    ]);
    expect(result.score).toBe(0);
  });

  it("tool-usage while the run is read: subagents, failures, denials, results out of order", () => {
    const tools = ["Bash", "Read", "Grep", "Write", "Edit"];
    const scripted = script("/repo")
      .call("Bash", { command: "cat package.json && find . -name '*.ts'" })
      .subagent("explorer", (sub) =>
        sub
          .call("Bash", { command: "grep -rn TODO src" }, { error: "grep: src: No such file" })
          .call("Bash", { command: "sed -i s/a/b/ x.ts" }, { denied: true }),
      )
      .call("Bash", { command: "npm test" })
      .build();
    for (const run of [{ ...scripted, tools }, scripted]) {
      const streamed = streamedCheck(toolUsageRule, run);
      expect(streamed).toEqual(toolUsageRule.check(run));
    }
    expect(types(streamedCheck(toolUsageRule, { ...scripted, tools }) as EvaluatorResult)).toEqual([
      "bash-instead-of-read",
      "bash-instead-of-grep",
      "bash-instead-of-edit",
    ]);

    // Parallel calls answered in the opposite order.
    const parallel = {
      ...parallelCalls(
        [
          ["a", "Bash", { command: "head -5 a.ts" }],
          ["b", "Bash", { command: "echo x > b.ts" }],
        ],
        ["b", "a"],
      ),
      tools,
    };
    const streamedParallel = streamedCheck(toolUsageRule, parallel);
    expect(streamedParallel).toEqual(toolUsageRule.check(parallel));
    expect(types(streamedParallel as EvaluatorResult)).toEqual([
      "bash-instead-of-read",
      "bash-instead-of-write",
    ]);
  });

  it("tool-usage while the run is read judges the calls made before the tool list came against it", () => {
    const run = script("/repo")
      .call("Bash", { command: "grep -rn TODO ." })
      .call("Bash", { command: "cat a.ts" })
      .call("Bash", { command: "find . -name '*.md'" })
      .build();
    const tools = ["Bash", "Read", "Grep"];
    // The tool list arrives after the first call (its event and result), then at the end.
    for (const at of [2, run.events.length]) {
      const streamed = withLateTools(run, tools, at);
      expect(streamed).toEqual(toolUsageRule.check({ ...run, tools }));
      expect(streamed.violations.map((v) => [v.type, v.severity])).toEqual([
        ["bash-instead-of-grep", "warning"],
        ["bash-instead-of-read", "warning"],
      ]);
      expect(streamed.metadata).toMatchObject({ notOffered: ["Glob"] });
    }
  });
});

/** tool-usage graded while `run` is read, its tool list (as an init line would) set after `at` events. */
function withLateTools(run: Run, tools: string[], at: number): EvaluatorResult {
  let context: ReturnType<typeof newRuleContext> | undefined;
  const stream = new RunStreamVisit((soFar) => {
    context = newRuleContext(TOOL_USAGE, {}, soFar);
    return [toolUsageRule.visit?.({}, { ...context, index: soFar }) ?? { end: () => undefined }];
  });
  stream.meta.cwd = run.cwd;
  run.events.forEach(({ index: _index, ...event }, position) => {
    if (position === at) stream.meta.tools = tools;
    stream.push(event as RunEventInput);
  });
  if (at >= run.events.length) stream.meta.tools = tools;
  const [outcome] = stream.end() as RuleOutcome[];
  if (!context || !outcome) throw new Error("tool-usage did not visit");
  return resultOf(TOOL_USAGE, context, outcome);
}
