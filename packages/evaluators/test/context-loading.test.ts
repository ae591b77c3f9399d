import type { EvaluatorResult, Run } from "@evals/core";
import { fixtureRun } from "@evals/test-kit/claude-fixtures";
import { describe, expect, it } from "vitest";
import { contextLoading } from "../src/index.js";
import { contextLoadingRule } from "../src/rules/context-loading.js";
import { script, streamedCheck, types } from "./helpers.js";
import { parallelCalls } from "./parallel-calls.js";

type ContextLoadingOptions = Parameters<typeof contextLoading>[1];

/** context-loading graded while the run is read, checked against the whole run's grading. */
function streamedAsWhole(run: Run, options: ContextLoadingOptions = {}): EvaluatorResult {
  const streamed = streamedCheck(contextLoadingRule, run, options);
  expect(streamed).toEqual(contextLoadingRule.check(run, options));
  return streamed as EvaluatorResult;
}

describe("context-loading", () => {
  it("warns on the real multi-tool run: it wrote out.txt without reading any context file", () => {
    const result = contextLoading(fixtureRun("multi-tool"));
    expect(result.passed).toBe(true);
    expect(types(result)).toEqual(["no-context-loaded"]);
    expect(result.violations[0]).toMatchObject({
      severity: "warning",
      pointer: { tool_use_id: "toolu_fake0014" },
    });
    expect(contextLoading(fixtureRun("multi-tool"), { required: true }).passed).toBe(false);
  });

  it("counts a CLAUDE.md the CLI loaded itself as context (real run: InstructionsLoaded)", () => {
    // The rules run's project has a CLAUDE.md; the agent never Read it, the CLI loaded it.
    const run = fixtureRun("rules", "hooks");
    expect(run.instructions?.map((file) => file.file_path)).toEqual(["/home/dev/project/CLAUDE.md"]);
    const result = contextLoading(run, { required: true });
    expect(result.violations).toEqual([]);
    expect(result.passed).toBe(true);
    expect(result.evidence.map((item) => item.description)).toContain(
      "/home/dev/project/CLAUDE.md loaded by Claude Code itself (session_start)",
    );
    expect(contextLoading(run, { expectedContextFiles: ["CLAUDE.md"] }).passed).toBe(true);
    // Without that knowledge (the stream alone), nothing says the context was loaded.
    const stream = fixtureRun("rules");
    expect(stream.instructions).toBeUndefined();
    expect(types(contextLoading(stream))).toEqual(["no-context-loaded"]);
  });

  it("counts OpenCode's agent files and OpenAgentsControl's .opencode/context files as context", () => {
    for (const file of [".opencode/context/core/standards/code.md", ".opencode/agent/openagent.md"]) {
      const run = script("/repo")
        .prompt("add a feature")
        .call("Read", { file_path: `/repo/${file}` })
        .call("Write", { file_path: "/repo/src/a.ts", content: "x" })
        .build();
      expect(contextLoading(run, { required: true }).violations, file).toEqual([]);
    }
  });

  it("passes when a context file is read before the first write (absolute or relative paths, cat in Bash)", () => {
    const viaRead = script("/repo")
      .prompt("add a feature")
      .call("Read", { file_path: "/repo/CLAUDE.md" })
      .call("Edit", { file_path: "/repo/src/a.ts" })
      .build();
    const result = contextLoading(viaRead, { required: true });
    expect(result.passed).toBe(true);
    expect(result.evidence[0]?.description).toContain("CLAUDE.md");

    const viaCat = script("/repo")
      .call("Bash", { command: "cat docs/STYLE.md" })
      .call("Write", { file_path: "x.ts" })
      .build();
    expect(contextLoading(viaCat, { required: true }).passed).toBe(true);

    const viaSkill = script("/repo")
      .call("Skill", { skill: "style" })
      .call("Write", { file_path: "x.ts" })
      .build();
    expect(contextLoading(viaSkill, { required: true }).passed).toBe(true);
    expect(contextLoading(viaSkill, { required: true, countSkills: false }).passed).toBe(false);
  });

  it("does not count a failed read or a read after the first write", () => {
    const run = script("/repo")
      .call("Read", { file_path: "AGENTS.md" }, { error: "File does not exist." })
      .call("Write", { file_path: "x.ts" })
      .call("Read", { file_path: "CLAUDE.md" })
      .build();
    const result = contextLoading(run, { required: true });
    expect(types(result)).toEqual(["no-context-loaded"]);
    expect(result.violations[0]?.evidence).toEqual({ late: ["CLAUDE.md"] });
  });

  it("enforces expectedContextFiles: each must be read before the first write", () => {
    const run = script("/repo")
      .call("Read", { file_path: "/repo/CLAUDE.md" })
      .call("Bash", { command: "npm install left-pad" })
      .call("Read", { file_path: "docs/api.md" })
      .build();
    const result = contextLoading(run, {
      expectedContextFiles: ["CLAUDE.md", "docs/*.md", ".claude/rules.md"],
    });
    expect(result.passed).toBe(false);
    expect(types(result)).toEqual(["context-loaded-late", "missing-context-file"]);
    expect(result.violations[0]?.pointer?.tool_use_id).toBe("toolu_3");
    expect(result.violations[1]?.message).toContain(".claude/rules.md");
    expect(result.score).toBeCloseTo(1 / 3);
  });

  it("requires expected files even when the run writes nothing", () => {
    const run = script("/repo").call("Grep", { pattern: "TODO" }).build();
    expect(types(contextLoading(run, { expectedContextFiles: ["README.md"] }))).toEqual([
      "missing-context-file",
    ]);
    expect(contextLoading(run).passed).toBe(true);
  });

  it("taskTypes: OpenAgentsControl's check, every problem an error, bash-only runs exempt", () => {
    const run = (...calls: [string, Record<string, unknown>][]) => {
      const builder = script("/repo").prompt("Create a file hello.txt");
      for (const [name, input] of calls) builder.call(name, input);
      return builder.build();
    };
    const code = ["Read", { file_path: "/repo/.opencode/context/core/standards/code.md" }] as const;
    const docs = ["Read", { file_path: "/repo/.opencode/context/core/standards/docs.md" }] as const;
    const write = ["Write", { file_path: "/repo/hello.txt", content: "hi" }] as const;
    const bash = ["Bash", { command: "node test.js" }] as const;
    const check = (...calls: [string, Record<string, unknown>][]) =>
      contextLoading(run(...calls), { taskTypes: true });
    // OAC: any write with no context file read at all fails, even a non-code file.
    expect(types(check(["Read", { file_path: "/repo/package.json" }], [...write]))).toEqual([
      "no-context-loaded",
    ]);
    expect(check(["Read", { file_path: "/repo/package.json" }], [...write]).passed).toBe(false);
    expect(types(check([...docs], [...write]))).toEqual(["wrong-context-file"]);
    expect(types(check([...write], [...code]))).toEqual(["context-loaded-after-execution"]);
    expect(check([...code], [...write]).violations).toEqual([]);
    // Bash only needs no context.
    expect(check([...bash]).violations).toEqual([]);
  });

  it("context-loading while the run is read: subagents, failures, denials, skills, late reads, instructions", () => {
    const run = script("/repo")
      .prompt("Write the docs for the API")
      .call("Read", { file_path: "AGENTS.md" }, { error: "File does not exist." })
      .call("Read", { file_path: "/repo/docs/api.md" }, { denied: true })
      .subagent("explorer", (sub) => sub.call("Bash", { command: "cat README.md CONTRIBUTING.md" }))
      .call("Skill", { skill: "style" })
      .call("Bash", { command: "npm install left-pad" })
      .call("Read", { file_path: "/repo/CLAUDE.md" })
      .call("Skill", { skill: "late" })
      .call("Write", { file_path: "/repo/docs/api.md", content: "x" })
      .final("done")
      .build();
    const auto = streamedAsWhole(run);
    expect(auto.evidence.map((item) => item.description)).toEqual([
      "read README.md",
      "read CONTRIBUTING.md",
      "loaded Skill",
    ]);
    expect(auto.metadata).toMatchObject({
      contextFilesRead: ["README.md", "CONTRIBUTING.md", "/repo/CLAUDE.md"],
    });
    const late = streamedAsWhole(run, { required: true, countSkills: false, contextFiles: ["CLAUDE.md"] });
    expect(types(late)).toEqual(["no-context-loaded"]);
    expect(late.violations[0]?.evidence).toEqual({ late: ["/repo/CLAUDE.md"] });
    const explicit = streamedAsWhole(run, {
      expectedContextFiles: ["CLAUDE.md", "README.md", "docs/*.md", "AGENTS.md"],
    });
    expect(types(explicit)).toEqual(["context-loaded-late", "missing-context-file", "missing-context-file"]);
    const loaded = { ...run, instructions: [{ file_path: "/repo/AGENTS.md", load_reason: "session_start" }] };
    expect(streamedAsWhole(loaded, { expectedContextFiles: ["AGENTS.md", "CLAUDE.md"] }).score).toBe(0.5);
    expect(streamedAsWhole(loaded, { required: true }).evidence[2]?.description).toBe(
      "/repo/AGENTS.md loaded by Claude Code itself (session_start)",
    );
    expect(streamedAsWhole(run, { expectedContextFiles: { anyOf: ["docs/*.md", "CLAUDE.md"] } }).passed).toBe(
      true,
    );
    expect(types(streamedAsWhole(run, { expectedContextFiles: { anyOf: ["docs/*.md"] } }))).toEqual([
      "missing-context-file",
    ]);
  });

  it("context-loading while the run is read lists the first reads and counts the rest, as a whole run does", () => {
    const builder = script("/repo");
    for (let i = 0; i < 130; i++) builder.call("Read", { file_path: "/repo/CLAUDE.md" });
    for (let i = 0; i < 3; i++) builder.call("Skill", { skill: `s${i}` });
    const run = builder.call("Write", { file_path: "/repo/a.ts", content: "x" }).build();
    const result = streamedAsWhole(run, { required: true });
    expect(result.evidence).toHaveLength(101);
    expect(result.evidence[100]?.description).toBe("... and 33 more");
  });

  it("taskTypes while the run is read: the prompt, main-agent calls only, results out of order", () => {
    const code = { file_path: "/repo/.opencode/context/core/standards/code.md" };
    const docs = { file_path: "/repo/.opencode/context/core/standards/docs.md" };
    const wrong = script("/repo")
      .prompt("Create a file hello.txt")
      .subagent("helper", (sub) => sub.call("Read", code).call("Write", { file_path: "/repo/x" }))
      .call("Read", docs)
      .build();
    expect(types(streamedAsWhole(wrong, { taskTypes: true }))).toEqual(["wrong-context-file"]);
    const denied = script("/repo")
      .prompt("Create a file hello.txt")
      .call("Read", code, { denied: true })
      .call("Write", { file_path: "/repo/hello.txt" })
      .build();
    expect(types(streamedAsWhole(denied, { taskTypes: true }))).toEqual(["no-context-loaded"]);

    // A Write and a Read made in parallel, the Write's result first: the Write still came first.
    const parallel = parallelCalls(
      [
        ["w", "Write", { file_path: "/repo/hello.txt" }],
        ["r", "Read", code],
      ],
      ["w", "r"],
      "Create a file hello.txt",
    );
    const result = streamedAsWhole(parallel, { taskTypes: true });
    expect(types(result)).toEqual(["context-loaded-after-execution"]);
    expect(result.violations[0]?.pointer?.tool_use_id).toBe("w");
    expect(types(streamedAsWhole(parallel, { expectedContextFiles: ["code.md"] }))).toEqual([
      "context-loaded-late",
    ]);
  });
});
