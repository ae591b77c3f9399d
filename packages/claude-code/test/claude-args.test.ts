import { describe, expect, it } from "vitest";
import { claudeArgs, userMessageLine } from "../src/index.js";

describe("claudeArgs", () => {
  it("runs one prompt headless with stream-json output, the prompt not on the command line (runAgent writes it to stdin)", () => {
    const args = claudeArgs({ prompts: ["-list files"] });
    expect(args).toEqual(["-p", "--output-format", "stream-json", "--verbose"]);
    expect(args).not.toContain("-list files");
  });

  it("maps every option to its flag, one argv entry per tool rule", () => {
    const args = claudeArgs({
      prompts: ["go"],
      settingsFile: "/tmp/s.json",
      model: "sonnet",
      maxTurns: 3,
      permissionMode: "acceptEdits",
      allowedTools: ["Bash(git add:*, git commit:*)", "Read"],
      disallowedTools: ["WebFetch"],
      tools: [],
      sessionId: "11111111-2222-3333-4444-555555555555",
      appendSystemPrompt: "be brief",
      mcpConfig: [{ mcpServers: {} }, "/tmp/mcp.json"],
      strictMcpConfig: true,
      addDirs: ["/a", "/b"],
      pluginDirs: ["/plugins/mine"],
      agents: { reviewer: { description: "reviews", prompt: "review" } },
      settingSources: ["project"],
      includeHookEvents: true,
      extraArgs: ["--effort", "low"],
    });
    expect(args).not.toContain("go");
    const pairs = (flag: string) => args.flatMap((arg, i) => (arg === flag ? [args[i + 1]] : []));
    expect(pairs("--settings")).toEqual(["/tmp/s.json"]);
    expect(pairs("--model")).toEqual(["sonnet"]);
    expect(pairs("--max-turns")).toEqual(["3"]);
    expect(pairs("--permission-mode")).toEqual(["acceptEdits"]);
    expect(args.slice(args.indexOf("--allowedTools") + 1, args.indexOf("--allowedTools") + 3)).toEqual([
      "Bash(git add:*, git commit:*)",
      "Read",
    ]);
    expect(pairs("--disallowedTools")).toEqual(["WebFetch"]);
    expect(pairs("--tools")).toEqual([""]);
    expect(pairs("--session-id")).toEqual(["11111111-2222-3333-4444-555555555555"]);
    expect(pairs("--append-system-prompt")).toEqual(["be brief"]);
    expect(pairs("--mcp-config")).toEqual(['{"mcpServers":{}}', "/tmp/mcp.json"]);
    expect(args).toContain("--strict-mcp-config");
    expect(pairs("--add-dir")).toEqual(["/a", "/b"]);
    expect(pairs("--plugin-dir")).toEqual(["/plugins/mine"]);
    expect(JSON.parse(pairs("--agents")[0]!)).toEqual({
      reviewer: { description: "reviews", prompt: "review" },
    });
    expect(pairs("--setting-sources")).toEqual(["project"]);
    expect(args).toContain("--include-hook-events");
    expect(pairs("--effort")).toEqual(["low"]);
  });

  it("feeds several prompts as stream-json on stdin, echoing them back into the stream", () => {
    const args = claudeArgs({ prompts: ["one", "two"] });
    expect(args).toEqual([
      "-p",
      "--output-format",
      "stream-json",
      "--verbose",
      "--input-format",
      "stream-json",
      "--replay-user-messages",
    ]);
    expect(JSON.parse(userMessageLine("one"))).toEqual({
      type: "user",
      message: { role: "user", content: "one" },
      parent_tool_use_id: null,
    });
    expect(userMessageLine("a\nb").endsWith("\n")).toBe(true);
    expect(userMessageLine("a\nb").split("\n")).toHaveLength(2);
  });

  it("refuses no prompt and a bad max turns", () => {
    expect(() => claudeArgs({ prompts: [] })).toThrow(/at least one prompt/);
    expect(() => claudeArgs({ prompts: ["x"], maxTurns: 0 })).toThrow(/maxTurns must be a positive integer/);
  });
});
