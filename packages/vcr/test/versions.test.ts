import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  claudeVersionOf,
  type Interaction,
  normalizeRequest,
  type Recording,
  readRecording,
  recordedRequest,
  replaying,
  versionNeutral,
  type WireRequest,
} from "../src/index.js";
import { recordingFromInteractions } from "../src/recording.js";

function request(version: string, options: { userAgent?: boolean; description?: string } = {}): WireRequest {
  return {
    method: "POST",
    path: "/v1/messages?beta=true",
    headers: options.userAgent === false ? {} : { "user-agent": `claude-cli/${version} (external, sdk-cli)` },
    body: {
      model: "claude-opus-5-5",
      system: [
        {
          type: "text",
          text: `x-anthropic-billing-header: cc_version=${version}.a1f; cc_entrypoint=sdk-cli;`,
        },
      ],
      tools: [{ name: "Bash", description: options.description ?? "run", input_schema: { type: "object" } }],
      messages: [{ role: "user", content: [{ type: "text", text: `hello from ${version}` }] }],
      max_tokens: 32000,
      stream: true,
    },
  };
}

describe("Claude Code versions of requests", () => {
  it("are read from the user-agent, else from the billing line of the system prompt", () => {
    expect(claudeVersionOf(request("2.1.330"))).toBe("2.1.330");
    expect(claudeVersionOf(request("2.2.0", { userAgent: false }))).toBe("2.2.0");
    expect(claudeVersionOf({ headers: {}, body: { model: "m", messages: [] } })).toBeUndefined();
  });

  it("a recording stores the first version its requests name", () => {
    const interaction = (index: number, wire: WireRequest): Interaction => ({
      index,
      request: wire,
      response: { status: 200, headers: { "content-type": "application/json" }, body: "{}" },
      source: "test",
      duration_ms: 1,
    });
    const hello: WireRequest = { method: "HEAD", path: "/api/hello", headers: {} };
    const stored = recordingFromInteractions([interaction(0, hello), interaction(1, request("2.1.330"))]);
    expect(stored.claude_version).toBe("2.1.330");
  });

  it("versionNeutral drops the system prompt, tool descriptions and schemas, and masks the versions", () => {
    const recorded = versionNeutral(normalizeRequest(request("2.1.330", { description: "old words" })), [
      "2.1.330",
      "2.2.0",
    ]);
    const replaying = versionNeutral(normalizeRequest(request("2.2.0", { description: "new words" })), [
      "2.1.330",
      "2.2.0",
    ]);
    expect(replaying).toEqual(recorded);
    expect(recorded.body).toEqual({
      model: "claude-opus-5-5",
      tools: [{ name: "Bash" }],
      messages: [{ role: "user", content: [{ type: "text", text: "hello from <claude-version>" }] }],
      stream: true,
    });
  });
});

/**
 * Every wire recording of a Claude Code run in the repository (real runs of 2.1.330); recordings of
 * other agents (the OpenCode and Gemini examples') name no Claude Code version and are left out.
 */
function repositoryRecordings(): string[] {
  const root = fileURLToPath(new URL("../../../", import.meta.url));
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".recording.json")) found.push(path);
    }
  };
  for (const top of ["examples", "plugins"]) walk(join(root, top));
  // Told apart by the agent that made them (its user-agent: OpenCode's, Codex's), so a Claude Code recording that lost its
  // version still fails below.
  return found.filter(
    (file) =>
      !/^(opencode\/|codex_exec\/|GeminiCLI)/.test(
        String(readRecording(file).interactions[0]?.request.headers?.["user-agent"] ?? ""),
      ),
  );
}

describe("the repository's real recordings, made by another version", () => {
  const files = repositoryRecordings();

  it("are there to test", () => {
    expect(files.length).toBeGreaterThan(10);
  });

  it("each request of the run that recorded them still matches when system prompt, tool descriptions and version changed", async () => {
    for (const file of files) {
      const original = readRecording(file);
      expect(original.claude_version, file).toBe("2.1.330");
      const variant = JSON.parse(JSON.stringify(original).split("2.1.330").join("2.0.77")) as Recording;
      for (const [key, value] of Object.entries(variant.shared)) {
        if (key.startsWith("system-")) (value as Array<{ text: string }>)[0]!.text += " (other wording)";
        if (key.startsWith("tools-")) {
          for (const tool of value as Array<Record<string, unknown>>) tool.description = "other words";
        }
      }
      const source = replaying(variant, { label: file });
      for (const interaction of original.interactions) {
        await source.respond(recordedRequest(original, interaction), {
          index: interaction.index,
          interactions: [],
          nextToolUseId: () => "toolu_x",
          nextMessageId: () => "msg_x",
        });
      }
      expect(source.divergences.map((divergence) => divergence.message)).toEqual([]);
      expect(source.unplayed(), file).toEqual([]);
      expect(source.matchedAcrossVersions.length, file).toBe(original.interactions.length);
    }
  });
});

describe("matchAcrossVersions: false", () => {
  it("makes every request match as it is, and the divergence still names both versions", async () => {
    const file = repositoryRecordings().find((path) => path.includes("build-failure"))!;
    const original = readRecording(file);
    const variant = JSON.parse(JSON.stringify(original).split("2.1.330").join("2.0.77")) as Recording;
    const strict = replaying(variant, { label: file, matchAcrossVersions: false });
    const first = original.interactions[0]!;
    const response = await strict.respond(recordedRequest(original, first), {
      index: 0,
      interactions: [],
      nextToolUseId: () => "toolu_x",
      nextMessageId: () => "msg_x",
    });
    expect(response.status).toBe(409);
    const [divergence] = strict.divergences;
    expect(divergence?.versions).toEqual({ recorded: "2.0.77", replaying: "2.1.330" });
    expect(divergence?.message).toContain("recorded with Claude Code 2.0.77, replaying with 2.1.330");
    // Compared as they are: the version in the system prompt's billing line is the difference.
    expect(divergence?.closest?.differences.map((difference) => difference.path)).toEqual(["system[0].text"]);
  });
});
