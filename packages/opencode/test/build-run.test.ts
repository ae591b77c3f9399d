import { readFileSync } from "node:fs";
import { sameTool } from "@evals/core";
import { describe, expect, it } from "vitest";
import {
  buildOpenCodeRun,
  exportedParts,
  type OpenCodeExport,
  type OpenCodeStreamLine,
} from "../src/index.js";

// Real OpenCode 1.18.33 runs (see fixtures/opencode-1.18.33/README.md).
const fixture = (name: string) => new URL(`../../../fixtures/opencode-1.18.33/${name}`, import.meta.url);
const stream = (name: string): OpenCodeStreamLine[] =>
  readFileSync(fixture(`${name}/stdout.jsonl`), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as OpenCodeStreamLine);
const exported = (name: string, id: string) =>
  JSON.parse(readFileSync(fixture(`${name}/export-${id}.json`), "utf8")) as OpenCodeExport;

describe("buildOpenCodeRun on real runs", () => {
  it("maps read/write/edit to the shared names and input shapes, keeping the originals", () => {
    const run = buildOpenCodeRun({ lines: stream("oc-read-write"), prompts: ["do the steps"] });
    expect(run.agent).toBe("opencode");
    const calls = run.events.filter((event) => event.type === "tool_call");
    expect(calls.map((call) => call.name)).toEqual(["Read", "Write", "Edit"]);
    expect(calls.map((call) => call.original_name)).toEqual(["read", "write", "edit"]);
    expect(calls[2]?.input).toMatchObject({
      file_path: expect.stringMatching(/a\.txt$/),
      old_string: "alpha",
      new_string: "ALPHA",
    });
    expect(calls[2]?.original_input).toMatchObject({
      filePath: expect.stringMatching(/a\.txt$/),
      oldString: "alpha",
    });
    const final = run.events.at(-1);
    expect(final).toMatchObject({
      type: "final_result",
      is_error: false,
      num_turns: 4,
      terminal_reason: "completed",
    });
    expect(final?.type === "final_result" && final.total_cost_usd).toBeGreaterThan(0);
    expect(final?.type === "final_result" && final.usage?.input_tokens).toBeGreaterThan(0);
  });

  it("puts a task's subagent events between the call and its result, attributed to the child", () => {
    const childId = "ses_df888b074ffeVBPE7sYlDK12tz";
    const child = exported("oc-subagent", childId);
    const run = buildOpenCodeRun({
      lines: stream("oc-subagent"),
      children: [
        {
          id: childId,
          parentId: child.info.parentID as string,
          agent: child.info.agent as string,
          parts: exportedParts(child),
        },
      ],
    });
    const types = run.events.map((event) => `${event.type}:${event.agent === "main" ? "main" : "child"}`);
    expect(types).toEqual([
      "assistant_text:main",
      "tool_call:main",
      "subagent_start:main",
      "assistant_text:child",
      "tool_call:child",
      "tool_result:child",
      "assistant_text:child",
      "subagent_stop:main",
      "tool_result:main",
      "assistant_text:main",
      "final_result:main",
    ]);
    const task = run.events.find((event) => event.type === "tool_call" && event.agent === "main");
    expect(task?.type === "tool_call" && sameTool(task.name, "Agent")).toBe(true);
    expect(run.agents).toContainEqual({
      id: childId,
      type: "general",
      parent: "main",
      parent_tool_use_id: "toolu_fake0004",
    });
    const childBash = run.events.find((event) => event.type === "tool_call" && event.agent === childId);
    expect(childBash).toMatchObject({ name: "Bash", input: { command: "echo from-child" } });
    expect(run.events.find((event) => event.type === "subagent_stop")).toMatchObject({
      last_message: "child done: from-child",
    });
  });
});
