import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  finalResponse,
  type JsonlLineError,
  listToolCalls,
  parseClaudeOutput,
  parseHookInput,
  parseJsonl,
  readJsonlFile,
  runFromClaudeOutput,
  runFromHookEvents,
} from "../src/index.js";
import { fixtureHookInputs, fixturesDir } from "./fixtures.js";

const here = (name: string) => `${fixturesDir}output-format-json/${name}`;
const tempDir = () => mkdtempSync(join(tmpdir(), "core-readers-"));

describe("hook event names that are JavaScript prototype keys", () => {
  for (const name of ["toString", "constructor", "__proto__", "hasOwnProperty", "valueOf"]) {
    it(`loads ${name} as an unknown event (no crash)`, () => {
      // JSON.parse makes "__proto__" an own key, as a hook's stdin would.
      const input = JSON.parse(`{"session_id":"s","cwd":"/p","hook_event_name":${JSON.stringify(name)}}`);
      const parsed = parseHookInput(input);
      expect(parsed.hook_event_name).toBe(name);
      const run = runFromHookEvents([...fixtureHookInputs("multi-tool").map(parseHookInput), parsed]);
      expect(listToolCalls(run).length).toBeGreaterThan(0);
    });
  }
});

describe("hooks-only runs", () => {
  it("take the final text from Stop's last_assistant_message", () => {
    // Captured without MessageDisplay (a capture registered for the usual events only).
    const inputs = fixtureHookInputs("multi-tool")
      .map(parseHookInput)
      .filter((input) => input.hook_event_name !== "MessageDisplay");
    expect(finalResponse(runFromHookEvents(inputs))).toBe("All steps done.");
  });

  it("do not repeat the final text MessageDisplay already gave", () => {
    const run = runFromHookEvents(fixtureHookInputs("multi-tool").map(parseHookInput));
    const texts = run.events.filter((event) => event.type === "assistant_text").map((event) => event.text);
    expect(texts).toEqual(["Step 1: list.", "All steps done."]);
  });
});

describe("claude output formats", () => {
  it("loads --output-format json --verbose (one JSON array) as the full run", () => {
    const output = runFromClaudeOutput(here("messages.json"), { prompts: ["say hi"] });
    expect(output.format).toBe("json-messages");
    expect(listToolCalls(output.run).map((call) => call.name)).toEqual(["Bash"]);
    expect(finalResponse(output.run)).toBe("Done: hi.");
  });

  it("loads --output-format json (one object) as what it is: a result only, and says so", () => {
    const output = runFromClaudeOutput(here("result.json"));
    expect(output.format).toBe("json-result");
    expect(finalResponse(output.run)).toBe("Done: hi.");
    expect(output.run.notes.map((note) => note.message).join("\n")).toMatch(/--output-format json/);
  });

  it("loads stream-json as stream-json", () => {
    const file = `${fixturesDir}multi-tool/stream.jsonl`;
    const output = parseClaudeOutput(readFileSync(file, "utf8"), file);
    expect(output.format).toBe("stream-json");
    expect(listToolCalls(output.run).length).toBe(5);
  });

  it("keeps the first and last halves of tool outputs longer than maxOutputChars, and notes it", () => {
    const lines = readFileSync(`${fixturesDir}multi-tool/stream.jsonl`, "utf8").trimEnd().split("\n");
    const result = JSON.parse(lines[5] as string);
    result.message.content[0].content = `START${"x".repeat(100_000)}END`;
    const file = join(mkdtempSync(join(tmpdir(), "evals-core-")), "stream.jsonl");
    writeFileSync(file, `${[...lines.slice(0, 5), JSON.stringify(result), ...lines.slice(6)].join("\n")}\n`);
    const whole = runFromClaudeOutput(file);
    expect(String(listToolCalls(whole.run)[0]?.result?.output)).toHaveLength(100_008);
    const kept = runFromClaudeOutput(file, { maxOutputChars: 1000 });
    const output = String(listToolCalls(kept.run)[0]?.result?.output);
    expect(output).toMatch(/^STARTx{495}\n\[\.\.\. 99008 characters left out \.\.\.\]\nx{497}END$/);
    expect(kept.run.notes.map((note) => note.message)).toContain(
      "1 tool output(s) longer than 1000 characters were kept as their first and last 500",
    );
  });
});

describe("a cut-off last line (the writer was killed mid-line)", () => {
  const real = readFileSync(`${fixturesDir}multi-tool/stream.jsonl`, "utf8").trimEnd().split("\n");
  const cut = `${real.join("\n")}\n${real[1]?.slice(0, 40)}`;

  it("readJsonlFile keeps the lines before it and warns with the file and line", async () => {
    const file = join(tempDir(), "stream.jsonl");
    writeFileSync(file, cut);
    const warnings: JsonlLineError[] = [];
    const lines = await readJsonlFile(file, { onTruncatedLine: (error) => warnings.push(error) });
    expect(lines).toHaveLength(real.length);
    expect(warnings.map((warning) => [warning.file, warning.line])).toEqual([[file, real.length + 1]]);
    expect(warnings[0]?.message).toMatch(/cut off/);
  });

  it("parseJsonl does the same for text in memory", () => {
    const warnings: string[] = [];
    const lines = parseJsonl(cut, "stream.jsonl", {
      onTruncatedLine: (error) => warnings.push(error.message),
    });
    expect(lines).toHaveLength(real.length);
    expect(warnings).toEqual([expect.stringMatching(new RegExp(`^stream\\.jsonl:${real.length + 1}: `))]);
  });

  it("a bad line that is not the last, or ends with a newline, is still an error", async () => {
    const file = join(tempDir(), "stream.jsonl");
    writeFileSync(file, `${real[0]}\n{"cut\n${real[1]}\n`);
    await expect(readJsonlFile(file)).rejects.toThrow(`${file}:2`);
    writeFileSync(file, `${real[0]}\n{"cut\n`);
    await expect(readJsonlFile(file)).rejects.toThrow(`${file}:2`);
  });
});
