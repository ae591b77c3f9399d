import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  canonicalToolName,
  isKnownToolName,
  isOpenCodeToolName,
  openCodeToolInput,
  openCodeToolName,
} from "../src/index.js";

// The 10 tool definitions OpenCode 1.18.33 sent to the model in a real run.
const tools = JSON.parse(
  readFileSync(new URL("../../../fixtures/opencode-1.18.33/tools.json", import.meta.url), "utf8"),
) as { name: string; input_schema: { properties: Record<string, unknown> } }[];

describe("OpenCode vocabulary", () => {
  it("maps every tool a real OpenCode run offered to a Claude Code tool", () => {
    expect(tools).toHaveLength(10);
    for (const tool of tools) {
      expect(isOpenCodeToolName(tool.name), tool.name).toBe(true);
      expect(isKnownToolName(openCodeToolName(tool.name)), tool.name).toBe(true);
    }
    expect(canonicalToolName(openCodeToolName("task"))).toBe("Agent");
    expect(openCodeToolName("list")).toBe("LS");
    expect(openCodeToolName("mcp__x__y")).toBe("mcp__x__y");
  });

  it("renames the inputs whose meaning is shared, keeping the others", () => {
    expect(
      openCodeToolInput("edit", { filePath: "/a", oldString: "x", newString: "y", replaceAll: true }),
    ).toEqual({ file_path: "/a", old_string: "x", new_string: "y", replace_all: true });
    expect(openCodeToolInput("read", { filePath: "/a", offset: 2, limit: 3 })).toEqual({
      file_path: "/a",
      offset: 2,
      limit: 3,
    });
    expect(openCodeToolInput("bash", { command: "ls", workdir: "/w" })).toEqual({
      command: "ls",
      workdir: "/w",
    });
    expect(openCodeToolInput("grep", { pattern: "a", include: "*.ts" })).toEqual({
      pattern: "a",
      glob: "*.ts",
    });
  });

  it("leaves no camelCase file path in any real tool schema unmapped", () => {
    for (const tool of tools) {
      const sample = Object.fromEntries(Object.keys(tool.input_schema.properties).map((key) => [key, 1]));
      expect(Object.keys(openCodeToolInput(tool.name, sample)), tool.name).not.toContain("filePath");
    }
  });
});
