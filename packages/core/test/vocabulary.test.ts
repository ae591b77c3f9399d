import { describe, expect, it } from "vitest";
import {
  BOOKKEEPING_TOOLS,
  BUILTIN_TOOLS,
  EXECUTION_TOOLS,
  FILE_EDIT_TOOLS,
  isBookkeepingTool,
  isFileEditTool,
  isFileWriteTool,
  SOMETIMES_OFFERED_TOOLS,
} from "../src/index.js";

describe("the tool lists of Claude Code's vocabulary", () => {
  it("sorts the tools the rules ask about", () => {
    expect(EXECUTION_TOOLS).toEqual(["Bash", "Write", "Edit", "MultiEdit", "NotebookEdit"]);
    expect(FILE_EDIT_TOOLS).toEqual(["Edit", "MultiEdit", "NotebookEdit"]);
    expect(isFileEditTool("Edit")).toBe(true);
    expect(isFileEditTool("Write")).toBe(false); // a Write may create the file
    expect(isFileWriteTool("Write")).toBe(true);
    expect(isBookkeepingTool("TodoWrite")).toBe(true);
    expect(isBookkeepingTool("AskUserQuestion")).toBe(true);
    expect(isBookkeepingTool("Bash")).toBe(false);
    expect(isBookkeepingTool("toString")).toBe(false);
  });

  it("names only built-in tools", () => {
    const builtins = new Set<string>(BUILTIN_TOOLS);
    for (const tool of [...BOOKKEEPING_TOOLS, ...FILE_EDIT_TOOLS, ...SOMETIMES_OFFERED_TOOLS])
      expect(builtins.has(tool), tool).toBe(true);
  });
});
