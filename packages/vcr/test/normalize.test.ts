import { claudeProjectKey } from "@evals/core";
import { describe, expect, it } from "vitest";
import {
  diffValues,
  formatDifference,
  formatDifferences,
  requestEnvironment,
  type WireRequest,
} from "../src/index.js";
import { normalizeBody, requestKey } from "../src/normalize.js";

/** A request shaped like Claude Code 2.1.330's, for a run in `cwd` on `date`. */
function cliRequest(options: {
  cwd: string;
  configDir: string;
  date?: string;
  prompt?: string;
  git?: boolean;
  /** The git root above the cwd that keys the memory folder (default: none, so the cwd keys it). */
  gitRoot?: string;
  agentId?: string;
  toolOrder?: "ab" | "ba";
  os?: string;
  stringContent?: boolean;
}): WireRequest {
  const { cwd, configDir } = options;
  const memoryDir = `${configDir}/projects/${claudeProjectKey(options.gitRoot ?? cwd)}/memory`;
  const environment = [
    "# Environment",
    "You have been invoked in the following environment: ",
    ` - Primary working directory: ${cwd}`,
    ` - Is a git repository: ${options.git ? "true" : "false"}`,
    ` - Platform: ${options.os === "mac" ? "darwin" : "linux"}`,
    ` - Shell: ${options.os === "mac" ? "zsh" : "bash"}`,
    ` - OS Version: ${options.os === "mac" ? "Darwin 24.1.0" : "Linux 6.18.44"}`,
    "",
    `Today's date is ${options.date ?? "2026-11-22"}.`,
  ].join("\n");
  const gitContext =
    "<system-reminder>\nAs you answer the user's questions, you can use the following context:\n# gitStatus\nThis is the git status at the start of the conversation.\n\nCurrent branch: main\n\nStatus:\n(clean)\n\nRecent commits:\nabc1234 first\n\nClaude Code attached this context automatically; it isn't part of the user's message.\n</system-reminder>";
  const tools = [
    { name: "Bash", description: "run", input_schema: {} },
    { name: "Agent", description: "delegate", input_schema: {}, cache_control: { type: "ephemeral" } },
  ];
  const agentId = options.agentId ?? "a21b74c85107dbdd8";
  return {
    method: "POST",
    path: "/v1/messages?beta=true",
    headers: { "x-claude-code-session-id": "s1" },
    body: {
      model: "claude-opus-5-5",
      max_tokens: 128000,
      stream: true,
      metadata: { user_id: JSON.stringify({ device_id: cwd, session_id: cwd }) },
      system: [
        {
          type: "text",
          text: `x-anthropic-billing-header: cc_version=2.1.330.${cwd.length.toString(16)}f; cc_entrypoint=sdk-cli;`,
        },
        {
          type: "text",
          text: `You have a persistent file-based memory at \`${memoryDir}/\`.`,
          cache_control: { type: "ephemeral" },
        },
      ],
      tools: options.toolOrder === "ba" ? [...tools].reverse() : tools,
      messages: [
        {
          role: "user",
          content: [
            ...(options.git ? [{ type: "text", text: gitContext }] : []),
            { type: "text", text: options.prompt ?? "Follow the steps." },
          ],
        },
        options.stringContent
          ? { role: "system", content: environment }
          : {
              role: "system",
              content: [{ type: "text", text: environment, cache_control: { type: "ephemeral" } }],
            },
        {
          role: "assistant",
          content: [
            { type: "tool_use", id: "toolu_1", name: "Read", input: { file_path: `${cwd}/notes.txt` } },
          ],
        },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "toolu_1",
              content: `report\nagentId: ${agentId} (use SendMessage with to: '${agentId}')\n<usage>subagent_tokens: 8713\ntool_uses: 1\nduration_ms: 204</usage>`,
            },
          ],
        },
      ],
    },
  };
}

describe("normalized requests", () => {
  const base = { cwd: "/tmp/run-a/project", configDir: "/tmp/run-a/.claude" };

  it("match across what varies between runs: paths, date, platform, git context, ids, markers, order", () => {
    const a = cliRequest(base);
    const b = cliRequest({
      cwd: "/home/someone/work/project-b",
      configDir: "/home/someone/.claude",
      date: "2027-01-05",
      git: true,
      agentId: "f00dfeed12345678",
      toolOrder: "ba",
      os: "mac",
      stringContent: true,
    });
    expect(formatDifferences(diffValues(normalizeBody(a.body), normalizeBody(b.body)))).toBe("");
    expect(requestKey(b)).toBe(requestKey(a));
  });

  it("differ on what the model sees: the prompt, tool inputs, tool results, the model", () => {
    const a = cliRequest(base);
    expect(requestKey(cliRequest({ ...base, prompt: "Other." }))).not.toBe(requestKey(a));
    const changed = cliRequest(base);
    (changed.body!.messages[3]!.content as Array<{ content: string }>)[0]!.content = "other report";
    expect(requestKey(changed)).not.toBe(requestKey(a));
    expect(requestKey({ ...a, body: { ...a.body!, model: "claude-other" } })).not.toBe(requestKey(a));
    expect(requestKey({ ...a, path: "/v1/messages/count_tokens" })).not.toBe(requestKey(a));
  });

  it("masks the paths wherever they appear, and finds them in the request itself", () => {
    const request = cliRequest(base);
    expect(requestEnvironment(request.body)).toEqual({
      cwd: "/tmp/run-a/project",
      configDir: "/tmp/run-a/.claude",
      memoryDir: "/tmp/run-a/.claude/projects/-tmp-run-a-project/memory",
      agentIds: ["a21b74c85107dbdd8"],
    });
    const normalized = normalizeBody(request.body) as {
      messages: Array<{ content: Array<Record<string, unknown>> }>;
      system: Array<{ text: string }>;
      metadata?: unknown;
    };
    expect(normalized.messages[2]!.content[0]!.input).toEqual({ file_path: "<cwd>/notes.txt" });
    expect(normalized.system[1]!.text).toBe(
      "You have a persistent file-based memory at `<config-dir>/projects/<project-key>/memory/`.",
    );
    expect(normalized.system[0]!.text).toBe(
      "x-anthropic-billing-header: cc_version=2.1.330; cc_entrypoint=sdk-cli;",
    );
    expect(normalized.metadata).toBeUndefined();
    expect(JSON.stringify(normalized)).not.toContain("cache_control");
    expect(normalized.messages[3]!.content[0]!.content).toBe(
      "report\nagentId: <agent-1> (use SendMessage with to: '<agent-1>')\n<usage>subagent_tokens: <tokens>\ntool_uses: 1\nduration_ms: <duration></usage>",
    );
  });

  it("match when the memory folder is keyed by a git root above the cwd (a stray /tmp/.git), not the cwd", () => {
    const inRepo = cliRequest({ ...base, gitRoot: "/tmp" });
    expect(requestEnvironment(inRepo.body).memoryDir).toBe("/tmp/run-a/.claude/projects/-tmp/memory");
    expect(requestKey(inRepo)).toBe(requestKey(cliRequest(base)));
    const elsewhere = cliRequest({
      cwd: "/home/someone/work/project-b",
      configDir: "/home/someone/.claude",
      gitRoot: "/home/someone/work",
    });
    expect(requestKey(elsewhere)).toBe(requestKey(cliRequest(base)));
    // Only the whole memory folder is masked: a `-tmp` elsewhere is what the model saw.
    const other = cliRequest({ ...base, gitRoot: "/tmp", prompt: "Look in -tmp/memory." });
    expect(JSON.stringify(normalizeBody(other.body))).toContain("Look in -tmp/memory.");
  });

  it("applies the user's rewrites and ignored fields", () => {
    const a = cliRequest({ ...base, prompt: "Build 2026-11-22T10:00:00Z" });
    const b = cliRequest({ ...base, prompt: "Build 2026-11-23T11:30:00Z" });
    expect(requestKey(a)).not.toBe(requestKey(b));
    const replace: Array<[RegExp, string]> = [[/\d{4}-\d{2}-\d{2}T[\d:]+Z/, "<time>"]];
    expect(requestKey(a, { replace })).toBe(requestKey(b, { replace }));
    const c = { ...a, body: { ...a.body!, max_tokens: 4096, thinking: { type: "enabled" } } };
    expect(requestKey(c, { ignore: ["max_tokens", "thinking"] })).toBe(
      requestKey(a, { ignore: ["max_tokens", "thinking"] }),
    );
    expect(requestKey(c)).not.toBe(requestKey(a));
  });
});

/** A request shaped like Gemini CLI 0.61.0's, listing `skills` in the order given. */
function geminiRequest(skills: string[]): WireRequest {
  const entries = skills.map((name) =>
    [
      "  <skill>",
      `    <name>${name}</name>`,
      `    <description>Use for ${name}.</description>`,
      `    <location>/opt/x/node_modules/@google/gemini-cli/bundle/builtin/${name}/SKILL.md</location>`,
      "  </skill>",
    ].join("\n"),
  );
  const hint = skills.length > 0 ? ` (Available: ${skills.map((name) => `'${name}'`).join(", ")})` : "";
  const listing = `# Skills\n\n<available_skills>\n${entries.join("\n")}\n</available_skills>\n\n# Hooks`;
  const activateSkill = {
    name: "activate_skill",
    description: `Activates a specialized agent skill by name${hint}. Returns the skill's instructions.`,
    parametersJsonSchema: { type: "object", properties: { name: { type: "string", enum: skills } } },
  };
  const body = {
    contents: [{ role: "user", parts: [{ text: "Archive the notes." }] }],
    systemInstruction: { parts: [{ text: listing }] },
    tools: [{ functionDeclarations: [activateSkill] }],
  };
  const path = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse";
  return { method: "POST", path, headers: {}, body: body as unknown as WireRequest["body"] };
}

describe("normalized Gemini requests", () => {
  it("match whichever order the CLI listed its skills in, and differ when the skills differ", () => {
    const recorded = geminiRequest(["skill-creator", "antigravity-support"]);
    expect(requestKey(geminiRequest(["antigravity-support", "skill-creator"]))).toBe(requestKey(recorded));
    expect(requestKey(geminiRequest(["skill-creator"]))).not.toBe(requestKey(recorded));
    expect(requestKey(geminiRequest(["skill-creator", "antigravity-support", "notes"]))).not.toBe(
      requestKey(recorded),
    );
    expect(requestKey(geminiRequest(["notes, drafts", "archive"]))).toBe(
      requestKey(geminiRequest(["archive", "notes, drafts"])),
    );
    const normalized = JSON.stringify(normalizeBody(recorded.body));
    expect(normalized).toContain("(Available: 'antigravity-support', 'skill-creator')");
    expect(normalized).toContain('"enum":["antigravity-support","skill-creator"]');
    expect(normalized.indexOf("<name>antigravity-support</name>")).toBeLessThan(
      normalized.indexOf("<name>skill-creator</name>"),
    );
  });

  it("leave a listing alone that is not only skill entries, and the order of other enums", () => {
    const request = geminiRequest(["b-skill", "a-skill"]);
    const body = request.body as unknown as { systemInstruction: { parts: Array<{ text: string }> } };
    const part = body.systemInstruction.parts[0]!;
    part.text = part.text.replace("  </skill>\n  <skill>", "  </skill>\nnote: b before a\n  <skill>");
    const normalized = JSON.stringify(normalizeBody(request.body));
    expect(normalized.indexOf("<name>b-skill</name>")).toBeLessThan(
      normalized.indexOf("<name>a-skill</name>"),
    );
    const todo = {
      name: "write_todos",
      parametersJsonSchema: { properties: { name: { enum: ["b", "a"] } } },
    };
    const withTodo = { ...body, tools: [{ functionDeclarations: [todo] }] };
    expect(JSON.stringify(normalizeBody(withTodo))).toContain('"enum":["b","a"]');
  });

  it("leave a skill listing in the conversation in its order: the agent read or wrote it", () => {
    const listing = (names: string[]) => {
      const request = geminiRequest(names);
      const body = request.body as unknown as {
        contents: Array<{ role: string; parts: Array<{ text: string }> }>;
        systemInstruction: { parts: Array<{ text: string }> };
      };
      // The file the agent read holds the listing the CLI sends (skills in the order given).
      body.contents.push({ role: "user", parts: [{ text: body.systemInstruction.parts[0]!.text }] });
      return request;
    };
    expect(requestKey(listing(["b-skill", "a-skill"]))).not.toBe(requestKey(listing(["a-skill", "b-skill"])));
    const normalized = normalizeBody(listing(["b-skill", "a-skill"]).body) as {
      contents: Array<{ parts: Array<{ text: string }> }>;
      systemInstruction: { parts: Array<{ text: string }> };
    };
    const read = normalized.contents[1]!.parts[0]!.text;
    expect(read.indexOf("<name>b-skill</name>")).toBeLessThan(read.indexOf("<name>a-skill</name>"));
    const system = normalized.systemInstruction.parts[0]!.text;
    expect(system.indexOf("<name>a-skill</name>")).toBeLessThan(system.indexOf("<name>b-skill</name>"));
  });
});

describe("diffValues / formatDifference", () => {
  it("names each differing leaf by its path", () => {
    const recorded = { messages: [{ content: [{ text: "list files" }] }], model: "a" };
    const got = {
      messages: [{ content: [{ text: "list all files" }] }, { role: "user" }],
      stream: true,
      model: "a",
    };
    expect(diffValues(recorded, got).map(formatDifference)).toEqual([
      'messages[0].content[0].text: recorded "list files", got "list all files"',
      'messages[1]: not recorded, got {"role":"user"}',
      "stream: not recorded, got true",
    ]);
    expect(formatDifference({ path: "tools", recorded: [1] })).toBe("tools: recorded [1], missing now");
    expect(formatDifference({ path: "x-y", recorded: 1, got: 2 })).toBe("x-y: recorded 1, got 2");
  });

  it("shows long strings around the first difference, and caps the list", () => {
    const prefix = "x".repeat(500);
    const line = formatDifference({ path: "a", recorded: `${prefix}OLD tail`, got: `${prefix}NEW tail` });
    expect(line).toContain("OLD tail");
    expect(line).toContain("NEW tail");
    expect(line.length).toBeLessThan(250);
    const many = Array.from({ length: 14 }, (_, index) => ({ path: `k${index}`, recorded: 1, got: 2 }));
    expect(formatDifferences(many).split("\n")).toHaveLength(11);
    expect(formatDifferences(many)).toContain("… and 4 more differences");
  });
});
