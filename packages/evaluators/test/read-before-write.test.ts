import type { EvaluatorResult } from "@evals/core";
import { fixtureRun } from "@evals/test-kit/claude-fixtures";
import { describe, expect, it } from "vitest";
import { readBeforeWrite } from "../src/index.js";
import { readBeforeWriteRule } from "../src/rules/read-before-write.js";
import { script, streamedCheck, types } from "./helpers.js";

describe("read-before-write", () => {
  it("does not guess on the real run's denied Write (no result says whether the file existed)", () => {
    const result = readBeforeWrite(fixtureRun("multi-tool"));
    expect(result.violations).toEqual([]);
    expect(result.evidence[0]?.type).toBe("unverified");
    const strict = readBeforeWrite(fixtureRun("multi-tool"), { writes: "always" });
    expect(types(strict)).toEqual(["overwrite-without-read"]);
    expect(strict.violations[0]?.pointer?.tool_use_id).toBe("toolu_fake0014");
  });

  it("flags an edit of a file that was never read, and accepts one that was (paths resolved against cwd)", () => {
    const bad = script("/repo")
      .call("Read", { file_path: "/repo/a.ts" })
      .call("Edit", { file_path: "/repo/b.ts" })
      .build();
    const result = readBeforeWrite(bad);
    expect(types(result)).toEqual(["edit-without-read"]);
    expect(result.violations[0]).toMatchObject({
      severity: "error",
      pointer: { tool_use_id: "toolu_2" },
      evidence: { path: "/repo/b.ts" },
    });
    const good = script("/repo")
      .call("Read", { file_path: "./src/../a.ts" })
      .call("Edit", { file_path: "/repo/a.ts" })
      .call("MultiEdit", { file_path: "a.ts" })
      .build();
    expect(readBeforeWrite(good).violations).toEqual([]);
    expect(readBeforeWrite(good).score).toBe(1);
  });

  it("counts cat in Bash and the agent's own earlier write as reading", () => {
    const run = script("/repo")
      .call("Bash", { command: "cat config.yaml | head" })
      .call("Edit", { file_path: "config.yaml" })
      .call(
        "Write",
        { file_path: "new.ts", content: "" },
        { output: "File created successfully at: /repo/new.ts" },
      )
      .call("Edit", { file_path: "new.ts" })
      .build();
    expect(readBeforeWrite(run).violations).toEqual([]);
  });

  it("checks overwrites by their result: a created file needs no read, an updated one does", () => {
    const run = script("/repo")
      .call("Write", { file_path: "a.ts" }, { output: { type: "create", filePath: "/repo/a.ts" } })
      .call("Write", { file_path: "b.ts" }, { output: { type: "update", filePath: "/repo/b.ts" } })
      .call(
        "Write",
        { file_path: "c.ts" },
        { output: "The file /repo/c.ts has been updated. Here's the result..." },
      )
      .build();
    expect(types(readBeforeWrite(run))).toEqual(["overwrite-without-read", "overwrite-without-read"]);
    expect(readBeforeWrite(run, { writes: "never" }).violations).toEqual([]);
  });

  it("does not let one agent's read cover another's edit unless scope is run", () => {
    const run = script("/repo")
      .call("Read", { file_path: "a.ts" })
      .subagent("general-purpose", (s) => s.call("Edit", { file_path: "a.ts" }))
      .build();
    const result = readBeforeWrite(run);
    expect(types(result)).toEqual(["edit-without-read"]);
    expect(result.violations[0]?.message).toContain("agent agent_general-purpose_2");
    expect(readBeforeWrite(run, { scope: "run" }).violations).toEqual([]);
  });

  it("counts a failed edit attempt (Claude Code refused it) and ignores a failed read", () => {
    const run = script("/repo")
      .call("Read", { file_path: "a.ts" }, { error: "File does not exist." })
      .call(
        "Edit",
        { file_path: "a.ts" },
        { error: "File has not been read yet. Read it first before writing to it." },
      )
      .build();
    expect(types(readBeforeWrite(run))).toEqual(["edit-without-read"]);
  });
});

describe("read-before-write while the run is read", () => {
  it("judges as it judges the whole run", () => {
    const run = script("/repo")
      .call("Read", { file_path: "/repo/a.ts" })
      .call("Edit", { file_path: "/repo/a.ts" })
      .call("Edit", { file_path: "/repo/b.ts" }, { error: "no such file" })
      .call("Write", { file_path: "/repo/c.ts" }, { output: "The file /repo/c.ts has been updated." })
      .build();
    const streamed = streamedCheck(readBeforeWriteRule, run, { writes: "always" });
    expect(streamed).toEqual(readBeforeWriteRule.check(run, { writes: "always" }));
    expect(types(streamed as EvaluatorResult)).toEqual(["edit-without-read", "overwrite-without-read"]);
  });
});
