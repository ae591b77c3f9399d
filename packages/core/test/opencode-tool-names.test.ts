import { describe, expect, it } from "vitest";
import { BUILTIN_TOOLS, OPENCODE_TOOL_NAMES, toolNameFromOpenCode } from "../src/index.js";

describe("OpenCode's tool names", () => {
  it("maps every tool the real opencode 1.18.33 offered to a built-in Claude Code tool", () => {
    // The tools of the default `build` agent (shared/fixtures/opencode-1.18.33/tools.json), plus the
    // `list` and `question` tools that `run` does not send.
    const offered = [
      ..."bash edit glob grep read skill task todowrite webfetch write list question".split(" "),
    ].map((name) => ({ name }));
    const builtins = new Set<string>(BUILTIN_TOOLS);
    expect(offered.length).toBeGreaterThan(5);
    for (const { name } of offered) {
      const canonical = toolNameFromOpenCode(name);
      expect(canonical, name).toBeDefined();
      expect(builtins.has(canonical as string), `${name} -> ${canonical}`).toBe(true);
    }
    for (const canonical of Object.values(OPENCODE_TOOL_NAMES))
      expect(builtins.has(canonical), canonical).toBe(true);
  });

  it("knows no name it was not given (no prototype keys, no Claude Code names)", () => {
    expect(toolNameFromOpenCode("task")).toBe("Agent");
    expect(toolNameFromOpenCode("list")).toBe("LS");
    expect(toolNameFromOpenCode("toString")).toBeUndefined();
    expect(toolNameFromOpenCode("Bash")).toBeUndefined();
    expect(toolNameFromOpenCode("patch")).toBeUndefined();
  });
});
