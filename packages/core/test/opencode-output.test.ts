import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import {
  isOpenCodeOutputLine,
  type OpenCodeStreamLine,
  openCodeStreamFinished,
  parseOpenCodeOutput,
  readRunFolder,
} from "../src/index.js";

// Real OpenCode 1.18.33 runs (fixtures/opencode-1.18.33/README.md) and a real Claude Code one.
const fixtures = fileURLToPath(new URL("../../../fixtures/", import.meta.url));
const ocStream = join(fixtures, "opencode-1.18.33/oc-read-write/stdout.jsonl");
const claudeStream = join(fixtures, "claude-code-2.1.330/multi-tool/stream.jsonl");
const temp = mkdtempSync(join(tmpdir(), "core-oc-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const firstLine = (file: string) => JSON.parse(readFileSync(file, "utf8").split("\n")[0] as string);

describe("OpenCode output", () => {
  it("tells OpenCode's JSON lines from Claude Code's stream-json", () => {
    expect(isOpenCodeOutputLine(firstLine(ocStream))).toBe(true);
    expect(isOpenCodeOutputLine(firstLine(claudeStream))).toBe(false);
  });

  it("builds the Run of a finished stream, and none of a cut one", () => {
    const text = readFileSync(ocStream, "utf8");
    const run = parseOpenCodeOutput(text, ocStream, { prompts: ["do the steps"], runId: "r" });
    expect(run.events.filter((event) => event.type === "tool_call").map((call) => call.name)).toEqual([
      "Read",
      "Write",
      "Edit",
    ]);
    expect(run.events.at(-1)).toMatchObject({ type: "final_result", is_error: false });
    const lines = text.trimEnd().split("\n");
    const parsed = lines.map((line) => JSON.parse(line) as OpenCodeStreamLine);
    expect(openCodeStreamFinished(parsed)).toBe(true);
    const cut = lines.slice(0, lines.findIndex((line) => line.includes('"reason":"tool-calls"')) + 1);
    expect(openCodeStreamFinished(cut.map((line) => JSON.parse(line)))).toBe(false);
    const unfinished = parseOpenCodeOutput(cut.join("\n"), "cut.jsonl");
    expect(unfinished.events.some((event) => event.type === "final_result")).toBe(false);
  });

  it("reads a run folder's OpenCode stream.jsonl without a manifest (detected)", async () => {
    const dir = join(temp, "oc-run");
    mkdirSync(dir);
    copyFileSync(ocStream, join(dir, "stream.jsonl"));
    const folder = await readRunFolder(dir);
    expect(folder.source).toBe("opencode-json");
    expect(folder.run.agent).toBe("opencode");
    expect(folder.run.id).toBe("oc-run");
  });
});
