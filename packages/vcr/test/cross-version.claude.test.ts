import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  countToolResults,
  lastToolResult,
  type ModelServer,
  type Recording,
  readRecording,
  recording,
  replaying,
  reply,
  scripted,
  startModelServer,
  text,
  toolUse,
} from "../src/index.js";
import { type ClaudeRun, runClaude } from "./claude.js";

/**
 * A recording made by the real CLI (2.1.330) is rewritten the way another Claude Code version would
 * have sent its requests, then replayed by the real 2.1.330 CLI: the version-dependent parts are
 * normalized out of the match, and what is not normalized fails naming both versions.
 */

const PROMPT = "Say what is in notes.txt.";
const OTHER_VERSION = "2.0.77";
const setup = (cwd: string) => writeFileSync(join(cwd, "notes.txt"), "alpha\n");

let dir: string;
let file: string;
let recorded: ClaudeRun;
let upstream: ModelServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "vcr-versions-"));
  file = join(dir, "notes.recording.json");
  upstream = await startModelServer({
    source: scripted((request) =>
      countToolResults(request) === 0
        ? reply(toolUse("Bash", { command: "cat notes.txt", description: "show notes" }))
        : reply(text(`notes say: ${lastToolResult(request)?.text.trim()}`)),
    ),
  });
  const recorder = await startModelServer({ source: recording({ upstream: upstream.url, file }) });
  try {
    recorded = await runClaude({ prompt: PROMPT, env: recorder.env(), setup });
  } finally {
    await recorder.close();
  }
}, 120_000);

afterAll(async () => {
  await upstream?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Every string of `value` with `from` replaced by `to`. */
function replaceEverywhere<T>(value: T, from: string, to: string): T {
  return JSON.parse(JSON.stringify(value).split(from).join(to)) as T;
}

/**
 * The recording as another version would have made it: its version string everywhere (metadata,
 * user-agent, billing line), other system prompt wording, another tool description and schema.
 */
function asOtherVersion(original: Recording): Recording {
  const changed = replaceEverywhere(original, "2.1.330", OTHER_VERSION);
  for (const [key, value] of Object.entries(changed.shared)) {
    if (key.startsWith("system-")) {
      const blocks = value as Array<{ type: string; text: string }>;
      blocks[blocks.length - 1]!.text += "\n\nA sentence that only the other version's system prompt has.";
    }
    if (key.startsWith("tools-")) {
      const bash = (value as Array<Record<string, unknown>>).find((tool) => tool.name === "Bash")!;
      bash.description = "Runs a shell command (reworded by the other version).";
      const schema = bash.input_schema as { properties: Record<string, unknown> };
      schema.properties.new_option = { type: "boolean", description: "an option only the other version has" };
    }
  }
  return changed;
}

function writeVariant(name: string, value: Recording): string {
  const path = join(dir, name);
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
  return path;
}

async function replay(path: string) {
  const source = replaying(path, { label: "the recording" });
  const server = await startModelServer({ source });
  try {
    const run = await runClaude({ prompt: PROMPT, env: server.env(), setup });
    return { run, source };
  } finally {
    await server.close();
  }
}

function resultText(run: ClaudeRun): unknown {
  return run.lines.find((line) => line.type === "result")?.result;
}

describe("replaying a recording with another Claude Code version (real claude CLI)", () => {
  it("stores the version that recorded it, from the requests", () => {
    expect(recorded.exitCode, recorded.stderr).toBe(0);
    expect(resultText(recorded)).toBe("notes say: alpha");
    const stored = readRecording(file);
    expect(stored.claude_version).toBe("2.1.330");
    expect(stored.interactions[0]?.request.headers["user-agent"]).toMatch(/^claude-cli\/2\.1\.330 /);
  });

  it("still matches when only the version-dependent parts differ", async () => {
    const original = readRecording(file);
    const variant = asOtherVersion(original);
    // The edit did change what the recording says about the system prompt, tools and version.
    expect(JSON.stringify(variant.shared)).not.toEqual(JSON.stringify(original.shared));
    expect(variant.claude_version).toBe(OTHER_VERSION);
    const { run, source } = await replay(writeVariant("other-version.recording.json", variant));
    expect(run.exitCode, `${run.stderr}\n${source.report()}`).toBe(0);
    expect(resultText(run)).toBe("notes say: alpha");
    expect(source.divergences).toEqual([]);
    expect(source.unplayed()).toEqual([]);
    expect(source.recordedVersion).toBe(OTHER_VERSION);
    expect(source.replayingVersions).toEqual(["2.1.330"]);
    expect(source.matchedAcrossVersions).toHaveLength(original.interactions.length);
    expect(source.report()).toContain(`Recorded with Claude Code ${OTHER_VERSION}, replayed with 2.1.330`);
  }, 120_000);

  it("with the same version, a changed system prompt is a divergence (nothing is loosened then)", async () => {
    const original = readRecording(file);
    const variant = asOtherVersion(original);
    const sameVersion = replaceEverywhere(variant, OTHER_VERSION, "2.1.330");
    const { run, source } = await replay(writeVariant("same-version.recording.json", sameVersion));
    expect(run.exitCode).not.toBe(0);
    expect(source.divergences[0]?.versions).toBeUndefined();
    expect(source.divergences[0]?.message).toContain("system[");
  }, 120_000);

  it("fails naming both versions and the difference that is not normalized", async () => {
    const variant = asOtherVersion(readRecording(file));
    // The messages are not normalized: here the other version words the prompt's reminder differently.
    const reminder = "Attribution for git commits";
    expect(JSON.stringify(variant.interactions[0]?.request.body)).toContain(reminder);
    const changed = replaceEverywhere(variant, reminder, "Credits for git commits");
    const { run, source } = await replay(writeVariant("other-messages.recording.json", changed));
    expect(run.exitCode).not.toBe(0);
    const [divergence] = source.divergences;
    expect(divergence?.versions).toEqual({ recorded: OTHER_VERSION, replaying: "2.1.330" });
    expect(divergence?.message).toContain(
      `recorded with Claude Code ${OTHER_VERSION}, replaying with 2.1.330`,
    );
    expect(divergence?.message).toContain(
      'messages[0].content[0].text: recorded "<system-reminder>\\nCredits for git commits',
    );
    // Only what is left once the version-dependent parts are out: not the system prompt or tools.
    const paths = divergence?.closest?.differences.map((difference) => difference.path) ?? [];
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.filter((path) => /^(system|tools)\b/.test(path))).toEqual([]);
    // The CLI is told too: its result is the API error with the same text.
    expect(String(resultText(run))).toContain(`replaying with 2.1.330`);
  }, 120_000);
});
