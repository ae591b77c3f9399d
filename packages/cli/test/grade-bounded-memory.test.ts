import { spawnSync } from "node:child_process";
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runFromClaudeOutput, writeRunFolder } from "@evals/core";
import { fixtureHookInputs, fixturesDir } from "@evals/test-kit/claude-fixtures";
import { afterAll, describe, expect, it } from "vitest";
import { builtIndex, evalsBin, runEvals } from "./evals-bin.js";

/** The built @evals/evaluators, for a child process of a test's own making. */
const builtEvaluators = import.meta.resolve("@evals/evaluators");

const temp = mkdtempSync(join(tmpdir(), "evals-grade-memory-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));
const caseFile = join(temp, "steps.case.yaml");
writeFileSync(caseFile, "id: steps\nprompt: do the steps\nbehavior:\n  mustUseTools: [Bash, Read]\n");

/** The real multi-tool run's stream-json lines: the Bash call (`ls`) and its result are lines 5 and 6. */
const realLines = readFileSync(`${fixturesDir}multi-tool/stream.jsonl`, "utf8").trimEnd().split("\n");
const bashCall = realLines[4] as string;
const bashResult = JSON.parse(realLines[5] as string);

/** The real run with `copies` more Bash calls, each printing `outputBytes`. */
function writeLongRun(file: string, copies: number, outputBytes: number): void {
  const fd = openSync(file, "w");
  const body = "x".repeat(outputBytes);
  try {
    for (const line of realLines.slice(0, -1)) writeSync(fd, `${line}\n`);
    for (let copy = 0; copy < copies; copy++) {
      const id = `toolu_big${copy}`;
      writeSync(fd, `${bashCall.replaceAll("toolu_fake0002", id)}\n`);
      const result = structuredClone(bashResult);
      result.message.content[0].tool_use_id = id;
      result.message.content[0].content = body;
      writeSync(fd, `${JSON.stringify(result)}\n`);
    }
    writeSync(fd, `${realLines.at(-1)}\n`);
  } finally {
    closeSync(fd);
  }
}

/** An id as Claude Code and the API make them (`toolu_01` or `msg_01` and 22 letters or digits). */
function claudeId(prefix: "toolu" | "msg", n: number): string {
  const letters = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  let id = `${prefix}_01`;
  for (let k = 0, rest = n * 7919 + 12345; k < 22; k++, rest = Math.floor(rest / 62) + k * 31)
    id += letters[rest % 62];
  return id;
}

/**
 * A long session's stream-json, shaped as Claude Code writes it (the bench's run, tools/bench
 * growth/stream-run.mjs, with real-length ids): `calls` calls, each in a model message of its own
 * with its result, in turn two Reads, an Edit of what was read and a test run through Bash that
 * sometimes fails.
 */
function writeManyCalls(file: string, calls: number): void {
  const fd = openSync(file, "w");
  const session = "6f1c1d2e-grade-memory";
  const time = (i: number) => new Date(Date.parse("2026-11-21T10:00:00Z") + i * 50).toISOString();
  const write = (value: unknown) => writeSync(fd, `${JSON.stringify(value)}\n`);
  try {
    write({
      type: "system",
      subtype: "init",
      cwd: "/home/dev/project",
      session_id: session,
      tools: ["Bash", "Read", "Edit"],
    });
    for (let i = 0; i < calls; i++) {
      const id = claudeId("toolu", i);
      const kind = i % 4;
      const path = `/home/dev/project/src/module-${(kind === 2 ? i - 1 : i) % 500}.ts`;
      const call =
        kind < 2
          ? { name: "Read", input: { file_path: path } }
          : kind === 2
            ? { name: "Edit", input: { file_path: path, old_string: `a${i}`, new_string: `b${i}` } }
            : {
                name: "Bash",
                input: { command: `npm test -- --grep case-${i}`, description: "run the tests" },
              };
      write({
        type: "assistant",
        message: {
          id: claudeId("msg", i),
          type: "message",
          role: "assistant",
          content: [{ type: "tool_use", id, ...call }],
          usage: { input_tokens: 100, output_tokens: 10 },
        },
        parent_tool_use_id: null,
        session_id: session,
        timestamp: time(2 * i),
      });
      const failed = kind === 3 && i % 20 === 3;
      write({
        type: "user",
        message: {
          role: "user",
          content: [
            {
              tool_use_id: id,
              type: "tool_result",
              content: failed ? "Error: 1 test failed" : `1\texport const value${i} = ${i};\n2\t`,
              is_error: failed,
            },
          ],
        },
        parent_tool_use_id: null,
        session_id: session,
        timestamp: time(2 * i + 1),
      });
    }
    write({
      type: "result",
      subtype: "success",
      is_error: false,
      num_turns: calls,
      session_id: session,
      result: "Done.",
    });
  } finally {
    closeSync(fd);
  }
}

/** `evals grade ...args` in a child of its own (node started with `nodeOptions`), with its peak memory (max RSS). */
function gradeMeasured(
  args: string[],
  nodeOptions: string[] = [],
): { code: number; stdout: string; stderr: string; maxRssMb: number } {
  const child = spawnSync(
    process.execPath,
    [
      ...nodeOptions,
      "--input-type=module",
      "-e",
      `const { evals } = await import(${JSON.stringify(builtIndex)});
let out = "";
const code = await evals(["grade", ...process.argv.slice(1)], { stdout: { write: (s) => { out += s; return true; } }, stderr: process.stderr });
process.stdout.write(JSON.stringify({ code, out, maxRssKb: process.resourceUsage().maxRSS }));`,
      "--",
      ...args,
    ],
    { encoding: "utf8", timeout: 120_000, env: { ...process.env, FORCE_COLOR: "0" }, maxBuffer: 1 << 26 },
  );
  if (child.status !== 0)
    throw new Error(
      `evals grade's process ended with ${child.status ?? child.signal}: ${child.stderr.slice(-1500)}`,
    );
  const result = JSON.parse(child.stdout);
  return { code: result.code, stdout: result.out, stderr: child.stderr, maxRssMb: result.maxRssKb / 1024 };
}

describe("evals grade in bounded memory", () => {
  it("grades a 300 MB stream.jsonl line by line: memory grows with what the rules keep, not the file's bytes", () => {
    const file = join(temp, "long-outputs.jsonl");
    // 1000 Bash calls printing 300 KB each: 300 MB of run (it was refused: more than a stored run holds).
    writeLongRun(file, 1000, 300 * 1024);
    const graded = gradeMeasured([file, "--case", caseFile, "--verbose"]);
    expect(graded.stderr).toBe("");
    expect(graded.stdout).toContain("1005 tool calls, agents: main");
    expect(graded.code).toBe(1);
    expect(graded.maxRssMb).toBeLessThan(300);
  }, 180_000);

  it("holds each call of a long run once, in one shape: its heap grows by under 570 bytes a call (it was over 1 KB, then 613)", () => {
    const file = join(temp, "many-calls.jsonl");
    writeManyCalls(file, 50_000);
    // Heap kept (after a full GC) by the loaded run, then by its grading, per call, in a child of its own.
    const child = spawnSync(
      process.execPath,
      [
        "--expose-gc",
        "--input-type=module",
        "-e",
        `const { casePrompts, gradeStoredRun, loadCases, loadStoredRun } = await import(${JSON.stringify(builtEvaluators)});
const heap = () => { globalThis.gc(); return process.memoryUsage().heapUsed; };
const [evalCase] = loadCases(${JSON.stringify(caseFile)});
const before = heap();
const stored = await loadStoredRun(${JSON.stringify(file)}, { prompts: casePrompts(evalCase) });
const loaded = heap() - before;
const graded = await gradeStoredRun(stored, evalCase);
const calls = stored.run.events.filter((event) => event.type === "tool_call").length;
process.stdout.write(JSON.stringify({ calls, loadedPerCall: loaded / calls, passed: graded.evaluation.passed }));`,
      ],
      { encoding: "utf8", timeout: 240_000 },
    );
    expect(child.stderr).toBe("");
    const kept = JSON.parse(child.stdout);
    expect(kept.calls).toBe(50_000);
    expect(kept.passed).toBe(false);
    // 613 bytes when a result held its own copy of the call's id and calls and results kept their
    // optional fields and index out of the object (a property array each).
    expect(kept.loadedPerCall).toBeLessThan(570);
  }, 300_000);

  it("grades a long stream-json run while reading it, bare or in a run folder: 300,000 calls graded in a 64 MB heap (the whole run needs over 200 MB)", () => {
    const folder = join(temp, "long-session");
    mkdirSync(folder);
    const file = join(folder, "stream.jsonl");
    writeManyCalls(file, 300_000);
    // Every default rule, on a run whose user approved in advance: the verdict holds few violations,
    // so what grading keeps does not grow with the run.
    const streamingCase = join(temp, "streaming.case.yaml");
    writeFileSync(streamingCase, "id: streaming\nprompt: Do the steps, go ahead without asking.\n");
    // A run folder was read whole before it was graded: it ran out of heap.
    for (const target of [file, folder]) {
      // The real binary in a node whose old generation may not pass 64 MB (the report goes to this process).
      const child = spawnSync(
        process.execPath,
        ["--max-old-space-size=64", evalsBin, "grade", target, "--case", streamingCase, "--json"],
        { encoding: "utf8", timeout: 240_000, env: { ...process.env, FORCE_COLOR: "0" }, maxBuffer: 1 << 28 },
      );
      expect(child.stderr).toBe("");
      expect(child.status).toBe(1);
      const report = JSON.parse(child.stdout);
      expect(report.source).toBe(file);
      expect(report.format).toBe("stream-json");
      expect(report.verdicts.map((verdict: { evaluator: string }) => verdict.evaluator)).toContain(
        "approval-gate",
      );
      expect(
        report.results.find((result: { evaluator: string }) => result.evaluator === "performance-metrics")
          .metadata.toolCalls,
      ).toBe(300_000);
    }
  }, 480_000);

  it("grades a harness run folder's result.json while reading it, with --case and with the case it stores: 100,000 calls graded in a 64 MB heap (it was read whole)", () => {
    const stream = join(temp, "harness-long.jsonl");
    writeManyCalls(stream, 100_000);
    const prompt = "Do the steps, go ahead without asking.";
    const streamingCase = join(temp, "harness-streaming.case.yaml");
    writeFileSync(streamingCase, `id: streaming\nprompt: ${prompt}\n`);
    // The folder as the harness leaves it: runAgent's result.json (the whole run, pretty-printed),
    // then the case it ran and its verdict in the manifest.
    const folder = join(temp, "harness-long");
    const { run } = runFromClaudeOutput(stream, { prompts: [prompt], runId: "harness-long" });
    writeRunFolder(folder, "harness-long", {
      result: { run_id: "harness-long", run, exit_code: 0, timed_out: false, duration_ms: 1, origin: "live" },
      agent: { prompts: [prompt] },
    });
    const grading = {
      scorers: [{ name: "outcome" }, { name: "approval-gate" }],
      verdict: {
        status: "failed" as const,
        scores: [
          { scorer: "outcome", score: 1, passed: true },
          { scorer: "approval-gate", score: 0, passed: false },
        ],
      },
    };
    writeRunFolder(folder, "harness-long", {
      case: { suite: "s", id: "streaming", trial: 0, trials: 1, value: { id: "streaming", prompt }, grading },
    });
    for (const args of [["--case", streamingCase], []]) {
      const child = spawnSync(
        process.execPath,
        ["--max-old-space-size=64", evalsBin, "grade", folder, ...args, "--json"],
        { encoding: "utf8", timeout: 240_000, env: { ...process.env, FORCE_COLOR: "0" }, maxBuffer: 1 << 28 },
      );
      expect(child.stderr).toBe("");
      const report = JSON.parse(child.stdout);
      expect(report.source).toBe(join(folder, "result.json"));
      expect(report.format).toBe("run-result");
      expect(report.harnessVerdict.status).toBe("failed");
      // Without --case, only the scorers the harness ran are judged.
      expect(report.verdicts.map((verdict: { evaluator: string }) => verdict.evaluator)).toEqual(
        args.length > 0
          ? expect.arrayContaining(["approval-gate", "tool-usage"])
          : ["outcome", "approval-gate"],
      );
      expect(child.status).toBe(report.passed ? 0 : 1);
    }
    // The folder's result.json given alone (it was read whole: the heap ran out): graded while read,
    // against the case given (a file alone holds no case).
    const file = join(folder, "result.json");
    const alone = spawnSync(
      process.execPath,
      ["--max-old-space-size=64", evalsBin, "grade", file, "--case", streamingCase, "--json"],
      { encoding: "utf8", timeout: 240_000, env: { ...process.env, FORCE_COLOR: "0" }, maxBuffer: 1 << 28 },
    );
    expect(alone.stderr).toBe("");
    const report = JSON.parse(alone.stdout);
    expect(report.source).toBe(file);
    expect(report.format).toBe("run-result");
    expect(report.harnessVerdict).toBeUndefined();
    expect(
      report.results.find((result: { evaluator: string }) => result.evaluator === "performance-metrics")
        .metadata.toolCalls,
    ).toBe(100_000);
    expect(alone.status).toBe(report.passed ? 0 : 1);
  }, 480_000);

  it("refuses a line longer than 256 MiB as bad input naming the file and line, in a run folder or alone (it was exit 3)", () => {
    const folder = join(temp, "run-huge-line");
    mkdirSync(folder);
    const file = join(folder, "stream.jsonl");
    // One Bash call printing 257 MiB: more than one line of a stored run may hold.
    writeLongRun(file, 1, 257 * 1024 * 1024);
    const hugeLine = realLines.length + 1;
    for (const target of [folder, file]) {
      const refused = runEvals(["grade", target, "--case", caseFile]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`${file}:${hugeLine}: the line is longer than 256 MiB`);
      expect(refused.stderr).toContain("cut the oversized value out of that line");
      expect(refused.stderr).not.toContain("internal error");
    }
  }, 180_000);

  it("refuses an events.jsonl line longer than 256 MiB the same way, before holding it whole", () => {
    const folder = join(temp, "run-huge-event");
    mkdirSync(folder);
    const file = join(folder, "events.jsonl");
    const lines = fixtureHookInputs("multi-tool").map((event, seq) =>
      JSON.stringify({
        version: 1,
        captured_at: new Date(1_790_000_000_000 + seq).toISOString(),
        run_id: "run-huge-event",
        seq,
        pid: 1,
        event,
      }),
    );
    const fd = openSync(file, "w");
    try {
      writeSync(fd, `${lines.slice(0, 3).join("\n")}\n`);
      // A PostToolUse whose tool_response is 257 MiB.
      const head = JSON.parse(lines[3] as string);
      head.event = { ...head.event, tool_response: "@" };
      const [before, after] = JSON.stringify(head).split('"@"');
      writeSync(fd, `${before}"`);
      const mib = Buffer.alloc(1024 * 1024, "x");
      for (let i = 0; i < 257; i++) writeSync(fd, mib);
      writeSync(fd, `"${after}\n`);
    } finally {
      closeSync(fd);
    }
    const refused = runEvals(["grade", folder, "--case", caseFile]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${file}:4: the line is longer than 256 MiB`);
    expect(refused.stderr).not.toContain("internal error");
  }, 180_000);
});
