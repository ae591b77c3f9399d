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
import { type EvalCaseInput, evaluate, evaluateStream, RunStreamVisit, visitRun } from "../src/index.js";

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

  it("hands on the events of a long run in order when calls wait behind calls answered thousands of events later", () => {
    const builder = new RunBuilder(["stream"]);
    const call = (id: string) =>
      builder.push({ type: "tool_call", agent: MAIN_AGENT, id, name: "Bash", input: { command: id } });
    const result = (id: string) =>
      builder.push({ type: "tool_result", agent: MAIN_AGENT, id, output: id, is_error: id.endsWith("0") });
    const answered = (id: string) => {
      call(id);
      result(id);
    };
    call("first");
    for (let i = 0; i < 1500; i++) answered(`a${i}`);
    call("second");
    for (let i = 0; i < 100; i++) answered(`b${i}`);
    result("first"); // Hands on all up to "second", some 3000 events, while 200 wait.
    for (let i = 0; i < 1200; i++) answered(`c${i}`);
    result("second");
    call("never");
    for (let i = 0; i < 10; i++) answered(`d${i}`);
    const run = builder.build();
    /** What visitors are handed, in order. */
    const record = (seen: string[]) => () => [
      {
        event: (event: { index: number; type: string }) => seen.push(`${event.index} ${event.type}`),
        call: (view: { id: string; status: string; position: number }) =>
          seen.push(`${view.position} ${view.id} ${view.status}`),
        end: () => seen.length,
      },
    ];
    const whole: string[] = [];
    visitRun(run, record(whole));
    const streamed: string[] = [];
    const visit = new RunStreamVisit(record(streamed));
    replay(run)(visit);
    visit.end();
    expect(streamed).toEqual(whole);
    expect(whole).toHaveLength(run.events.length + 2813);
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

/** Stream-json lines shaped as Claude Code 2.1.330 writes them (see fixtures/claude-code-2.1.330). */
const session = "5a5bb512-da5b-49b9-adb3-e7374f695e37";
type Sub = { parent: string; agent?: string };
const lineOf = (sub?: Sub) =>
  sub
    ? { parent_tool_use_id: sub.parent, ...(sub.agent ? { agent_id: sub.agent } : {}) }
    : { parent_tool_use_id: null };
const said = (text: string, sub?: Sub) => ({
  type: "assistant",
  message: { id: `msg_${text.length}`, role: "assistant", content: [{ type: "text", text }] },
  ...lineOf(sub),
  session_id: session,
});
const calling = (uses: [string, string, Record<string, unknown>][], sub?: Sub) => ({
  type: "assistant",
  message: {
    id: `msg_${uses[0]?.[0]}`,
    role: "assistant",
    content: uses.map(([id, name, input]) => ({ type: "tool_use", id, name, input })),
  },
  ...lineOf(sub),
  session_id: session,
});
const answer = (id: string, content: unknown, isError = false, sub?: Sub) => ({
  type: "user",
  message: { role: "user", content: [{ tool_use_id: id, type: "tool_result", content, is_error: isError }] },
  ...lineOf(sub),
  session_id: session,
});
const started = (task: string, call: string, type: string) => ({
  type: "system",
  subtype: "task_started",
  task_id: task,
  tool_use_id: call,
  subagent_type: type,
  prompt: `do the ${type} part`,
  session_id: session,
});
const notified = (task: string, call: string) => ({
  type: "system",
  subtype: "task_notification",
  task_id: task,
  tool_use_id: call,
  status: "completed",
  summary: `${task} done`,
  session_id: session,
});
const denial = (id: string, tool: string) => ({
  type: "system",
  subtype: "permission_denied",
  tool_name: tool,
  tool_use_id: id,
  message: `Claude requested permissions to use ${tool}, but you haven't granted it yet.`,
  session_id: session,
});
const resultLine = (denied: string[] = [], extra: Record<string, unknown> = {}) => ({
  type: "result",
  subtype: "success",
  is_error: false,
  num_turns: 4,
  result: "Done.",
  session_id: session,
  permission_denials: denied.map((id) => ({ tool_name: "Write", tool_use_id: id, tool_input: {} })),
  ...extra,
});
const initLine = {
  type: "system",
  subtype: "init",
  cwd: "/home/dev/project",
  session_id: session,
  tools: ["Task", "Bash", "Read", "Edit", "Write"],
  claude_code_version: "2.1.330",
};
const hookBlock = "PreToolUse:Bash hook error: [node hook.mjs]: Blocked: rm is not allowed";
const write = { file_path: "/home/dev/project/a.ts", content: "x" };
const edit = { file_path: "/home/dev/project/a.ts", old_string: "a", new_string: "b" };
const planner = { parent: "ta", agent: "a1" };
const coder = { parent: "tb", agent: "b1" };

const shapes: [string, "streamed" | "gives up", unknown[]][] = [
  [
    "nested subagents, parallel calls of the grandchild answered out of order",
    "streamed",
    [
      initLine,
      calling([["ta", "Agent", { subagent_type: "planner", prompt: "plan" }]]),
      started("a1", "ta", "planner"),
      calling([["tb", "Task", { subagent_type: "coder", prompt: "code" }]], planner),
      started("b1", "tb", "coder"),
      calling(
        [
          ["c1", "Bash", { command: "npm run build" }],
          ["c2", "Write", write],
        ],
        coder,
      ),
      answer("c2", "ok", false, coder),
      answer("c1", "Error: build failed", true, coder),
      calling([["c3", "Bash", { command: "rm -rf dist" }]], coder),
      answer("c3", "", false, coder),
      notified("b1", "tb"),
      answer("tb", "coded", false, planner),
      calling([["c4", "Bash", { command: "git push --force" }]], planner),
      answer("c4", "ok", false, planner),
      notified("a1", "ta"),
      answer("ta", "planned"),
      said("All good. Done."),
      resultLine(),
    ],
  ],
  [
    "background subagents, a task notification between two result lines",
    "streamed",
    [
      initLine,
      calling([
        ["ta", "Agent", { subagent_type: "planner", prompt: "plan" }],
        ["tb", "Agent", { subagent_type: "coder", prompt: "code" }],
      ]),
      started("a1", "ta", "planner"),
      answer("ta", [{ type: "text", text: "Async agent launched successfully.\nagentId: a1" }]),
      started("b1", "tb", "coder"),
      answer("tb", [{ type: "text", text: "Async agent launched successfully.\nagentId: b1" }]),
      calling([["c1", "Edit", edit]], coder),
      calling([["c2", "Read", { file_path: "/home/dev/project/a.ts" }]], planner),
      said("waiting"),
      answer("c2", "a", false, planner),
      answer("c1", "Error: String not found", true, coder),
      notified("b1", "tb"),
      resultLine([], { num_turns: 2 }),
      {
        type: "user",
        message: {
          role: "user",
          content: "<task-notification>\n<task-id>a1</task-id>\n</task-notification>",
        },
        parent_tool_use_id: null,
        session_id: session,
      },
      notified("a1", "ta"),
      said("Both done."),
      resultLine(),
    ],
  ],
  [
    "a subagent's lines without task_started, its prompt first",
    "streamed",
    [
      initLine,
      calling([["ta", "Task", { subagent_type: "general-purpose", prompt: "fix it" }]]),
      {
        type: "user",
        message: { role: "user", content: [{ type: "text", text: "fix it" }] },
        ...lineOf(planner),
      },
      calling([["c1", "Bash", { command: "npm test" }]], planner),
      answer("c1", "Error: 2 failed", true, planner),
      calling([["c2", "Edit", edit]], planner),
      answer("c2", "ok", false, planner),
      answer("ta", "fixed"),
      said("Done."),
      resultLine(),
    ],
  ],
  [
    "a hook block and a permission denial the result line names",
    "streamed",
    [
      initLine,
      calling([["h1", "Bash", { command: "rm -rf build" }]]),
      answer("h1", hookBlock, true),
      calling([["w1", "Write", write]]),
      denial("w1", "Write"),
      answer("w1", "Claude requested permissions to use Write, but you haven't granted it yet.", true),
      said("Done."),
      resultLine(["h1", "w1"]),
    ],
  ],
  [
    "a hook block the result line does not name (the run was cut short)",
    "gives up",
    [
      initLine,
      calling([["h1", "Bash", { command: "rm -rf build" }]]),
      answer("h1", hookBlock, true),
      said("Done."),
    ],
  ],
  [
    "a permission denial that comes after the call's result",
    "gives up",
    [
      initLine,
      calling([["w1", "Write", write]]),
      answer("w1", "Error: no", true),
      denial("w1", "Write"),
      resultLine(),
    ],
  ],
  [
    "calls of one id waiting together, answered once: each takes the result, as whole",
    "streamed",
    [
      initLine,
      calling([
        ["d1", "Bash", { command: "npm test" }],
        ["d1", "Bash", { command: "npm run lint" }],
      ]),
      calling([["d1", "Edit", edit]]),
      answer("d1", "Error: 1 failed", true),
      calling([["d2", "Read", { file_path: "/home/dev/project/a.ts" }]]),
      answer("d2", "a"),
      resultLine(),
    ],
  ],
  [
    "a call never answered, and a result that answers no call",
    "streamed",
    [
      initLine,
      calling([["n1", "Bash", { command: "sleep 100" }]]),
      answer("ghost", "boo", true),
      calling([["n2", "Edit", edit]]),
      answer("n2", "ok"),
      resultLine([], { subtype: "error_during_execution", is_error: true }),
    ],
  ],
];

describe("grading stream-json shapes of real runs while they are read", () => {
  const prompts = ["fix the build"];
  // As evals grade reads both ways: tool outputs kept to their first and last 32 KiB.
  const options = { prompts, maxOutputChars: 64 * 1024 };
  it.each(shapes)("%s: %s, as evaluate judges it whole", async (name, expected, lines) => {
    const file = join(temp, `${name.replace(/\W+/g, "-")}.jsonl`);
    writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    for (const evalCase of [
      everyRule(prompts),
      {
        ...everyRule(prompts),
        behavior: { mustUseTools: ["Bash"] },
        expectedTrajectory: { mode: "unordered" as const, calls: ["Bash"] },
        expectedViolations: [{ rule: "error-handling", shouldViolate: true }],
      },
    ]) {
      const whole = await evaluate(runFromClaudeOutput(file, options).run, evalCase);
      const streamed = await evaluateStream((sink) => claudeOutputInto(file, sink, options), evalCase);
      if (expected === "gives up") expect(streamed).toBeUndefined();
      else expect(streamed?.evaluation).toEqual(whole);
    }
  });
});
