import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  claudeOutputInto,
  MAIN_AGENT,
  type Run,
  RunBuilder,
  type RunEventInput,
  type RunSink,
  runFromClaudeOutput,
} from "@evals/core";
import { fixturePrompts, fixturesDir } from "@evals/test-kit/claude-fixtures";
import { afterAll, describe, expect, it } from "vitest";
import { type EvalCaseInput, evaluate, evaluateStream } from "../src/index.js";

/** A case that runs every built-in rule, the opt-in ones too. */
const everyRule = (prompts: string[]): EvalCaseInput => ({
  id: "every-rule",
  prompt: prompts[0] ?? "go",
  rules: { "report-first": {}, "error-handling": {} },
});

/** Writes a Run's events into a sink as a translator would while reading it. */
function replay(run: Run): (sink: RunSink) => void {
  return (sink) => {
    Object.assign(sink.meta, { id: run.id, cwd: run.cwd });
    for (const agent of run.agents) sink.agent(agent);
    for (const { index: _index, ...event } of run.events) sink.push(event as RunEventInput);
    for (const note of run.notes) sink.note(note);
  };
}

describe("grading a run while it is read", () => {
  const fixtures = readdirSync(fixturesDir, { withFileTypes: true })
    .filter(
      (entry) => entry.isDirectory() && readdirSync(join(fixturesDir, entry.name)).includes("stream.jsonl"),
    )
    .map((entry) => entry.name);

  it.each(fixtures)("judges the real run %s as evaluate judges it whole", async (name) => {
    const file = join(fixturesDir, name, "stream.jsonl");
    const prompts = fixturePrompts(name as Parameters<typeof fixturePrompts>[0]);
    const evalCase = everyRule(prompts);
    const whole = await evaluate(runFromClaudeOutput(file, { prompts }).run, evalCase);
    const streamed = await evaluateStream((sink) => claudeOutputInto(file, sink, { prompts }), evalCase);
    expect(streamed).toBeDefined();
    expect(streamed?.evaluation).toEqual(whole);
  });

  it("hands on parallel calls in order, each with its result, whatever order the results came in", async () => {
    const builder = new RunBuilder(["stream"]);
    builder.meta.cwd = "/repo";
    const push = (event: RunEventInput) => builder.push(event);
    push({ type: "user_message", agent: MAIN_AGENT, text: "fix it" });
    push({ type: "tool_call", agent: MAIN_AGENT, id: "a", name: "Edit", input: { file_path: "/repo/a.ts" } });
    push({ type: "tool_call", agent: MAIN_AGENT, id: "b", name: "Read", input: { file_path: "/repo/a.ts" } });
    push({ type: "tool_call", agent: MAIN_AGENT, id: "c", name: "Bash", input: { command: "rm -rf build" } });
    push({ type: "tool_result", agent: MAIN_AGENT, id: "c", output: "", is_error: false });
    push({ type: "assistant_text", agent: MAIN_AGENT, text: "Shall I go ahead?" });
    push({ type: "tool_result", agent: MAIN_AGENT, id: "b", output: "x", is_error: false });
    push({ type: "tool_result", agent: MAIN_AGENT, id: "a", output: "boom", is_error: true });
    push({ type: "tool_call", agent: MAIN_AGENT, id: "d", name: "Edit", input: { file_path: "/repo/a.ts" } });
    push({ type: "final_result", agent: MAIN_AGENT, subtype: "success", is_error: false });
    const run = builder.build();
    const evalCase = everyRule(["fix it"]);
    const streamed = await evaluateStream(replay(run), evalCase);
    expect(streamed?.evaluation).toEqual(await evaluate(run, evalCase));
    expect(streamed?.toolCalls).toBe(4);
    // Every rule visits: nothing of the run is kept but its result line.
    expect(streamed?.run.events.map((event) => event.type)).toEqual(["final_result"]);
  });

  it("gives up (undefined) when a denial comes after the call was graded: the whole run must be judged", async () => {
    const builder = new RunBuilder(["stream"]);
    builder.push({
      type: "tool_call",
      agent: MAIN_AGENT,
      id: "w",
      name: "Write",
      input: { file_path: "/x" },
    });
    builder.push({ type: "tool_result", agent: MAIN_AGENT, id: "w", output: "no", is_error: true });
    builder.push({
      type: "final_result",
      agent: MAIN_AGENT,
      subtype: "success",
      is_error: false,
      permission_denials: [{ tool_name: "Write", tool_use_id: "w", tool_input: {} }],
    });
    expect(await evaluateStream(replay(builder.build()), everyRule(["go"]))).toBeUndefined();
  });
});

/**
 * The real multi-tool run (Bash `ls` toolu_fake0002 answered "a.txt\nb.txt", ..., a Read of a missing
 * file toolu_fake0011 answered with an error) with its lines changed by `edit`, in a file of its own.
 */
const temp = mkdtempSync(join(tmpdir(), "evals-visit-stream-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));
const multiTool = readFileSync(join(fixturesDir, "multi-tool", "stream.jsonl"), "utf8")
  .trimEnd()
  .split("\n");
function editedMultiTool(name: string, edit: (lines: string[]) => string[]): string {
  const file = join(temp, `${name}.jsonl`);
  writeFileSync(file, `${edit([...multiTool]).join("\n")}\n`);
  return file;
}

describe("grading a real run while it is read, when its ids are used twice", () => {
  const prompts = fixturePrompts("multi-tool");
  const evalCase = everyRule(prompts);
  /** Whole-run grading pairs every call with the LAST result of its id: streamed must agree or give up. */
  const judgedBothWays = async (file: string) => ({
    whole: await evaluate(runFromClaudeOutput(file, { prompts }).run, evalCase),
    streamed: await evaluateStream((sink) => claudeOutputInto(file, sink, { prompts }), evalCase),
  });

  it("gives up when a later call reuses the id of a call already graded (its result replaces the first's)", async () => {
    // The failing Read of line 11/12 gets the id of the Bash `ls` of lines 5/6.
    const file = editedMultiTool("reused-id", (lines) =>
      lines.map((line, n) =>
        n === 10 || n === 11 ? line.replaceAll("toolu_fake0011", "toolu_fake0002") : line,
      ),
    );
    const { whole, streamed } = await judgedBothWays(file);
    // Whole, `ls` took the Read's error as its own: stop-on-failure sees a failure it did not see streamed.
    expect(
      whole.verdicts.find((verdict) => verdict.evaluator === "error-handling")?.result.metadata,
    ).toMatchObject({ failures: 4 });
    expect(streamed).toBeUndefined();
  });

  it("gives up when a call is answered twice after it was graded", async () => {
    // The `ls` call is answered again, with an error, after the Read (line 8).
    const again = multiTool[5]?.replace(
      '"content":"a.txt\\nb.txt","is_error":false',
      '"content":"Error: ls: cannot access","is_error":true',
    ) as string;
    expect(again).not.toBe(multiTool[5]);
    const file = editedMultiTool("answered-twice", (lines) => [
      ...lines.slice(0, 8),
      again,
      ...lines.slice(8),
    ]);
    const { whole, streamed } = await judgedBothWays(file);
    expect(
      whole.verdicts.find((verdict) => verdict.evaluator === "error-handling")?.result.metadata,
    ).toMatchObject({ failures: 4 });
    expect(streamed).toBeUndefined();
  });

  it("gives up when a result comes before its call", async () => {
    // The Read's result line before the Read.
    const file = editedMultiTool("result-first", (lines) => [
      ...lines.slice(0, 10),
      lines[11] as string,
      lines[10] as string,
      ...lines.slice(12),
    ]);
    const { whole, streamed } = await judgedBothWays(file);
    expect(
      whole.verdicts.find((verdict) => verdict.evaluator === "error-handling")?.result.metadata,
    ).toMatchObject({ failures: 3 });
    expect(streamed).toBeUndefined();
  });

  it("still grades while reading when a result answers no call, as whole", async () => {
    const ghost = multiTool[5]?.replaceAll("toolu_fake0002", "toolu_ghost") as string;
    const file = editedMultiTool("ghost-result", (lines) => [...lines.slice(0, 8), ghost, ...lines.slice(8)]);
    const { whole, streamed } = await judgedBothWays(file);
    expect(streamed?.evaluation).toEqual(whole);
  });
});
