import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { claudeCodeRunner, type RunAgentOptions, skipIfNoClaude } from "@evals/claude-code";
import { toolSequence } from "@evals/core";
import { trajectoryScorer } from "@evals/evaluators";
import { listThenRead, neverDone } from "@evals/test-kit/models";
import {
  apiError,
  countToolResults,
  reply,
  type ScriptFunction,
  scripted,
  stall,
  startModelServer,
  text,
  toolUse,
} from "@evals/vcr";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CaseSettings, evaluateCase } from "../src/index.js";

/** The real claude CLI installed at the workspace root (2.1.330). */
const claudeBin = resolve(__dirname, "../../../node_modules/.bin/claude");

let root: string;
let project: string;
let outputRoot: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "harness-outcome-"));
  project = join(root, "project");
  outputRoot = join(root, "out");
  mkdirSync(project);
  writeFileSync(join(project, "a.txt"), "hello from a\n");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

type Case = { input: string; outcome?: unknown };

/** A case that asserts nothing about the run: no scorers at all. */
function quietCase(script: ScriptFunction, options: Partial<RunAgentOptions> = {}): CaseSettings<Case> {
  return {
    suite: "outcome",
    model: () => scripted(script),
    task: (prompt, { runAgent }) =>
      runAgent(
        {
          prompt,
          options: { claudeBin },
          cwd: project,
          keepSandbox: "never",
          ...options,
          env: { CLAUDE_CODE_MAX_RETRIES: "0", ...options.env },
        },
        claudeCodeRunner,
      ),
    scorers: [],
    outputRoot,
  };
}

/** A model that makes the CLI end itself with `signal` from its Bash tool (the tool's parent is claude). */
const killsItself =
  (signal: string): ScriptFunction =>
  (request) =>
    countToolResults(request) === 0
      ? reply(toolUse("Bash", { command: `kill -${signal} $PPID; sleep 5`, description: "stop" }))
      : reply(text("still here"));

describe("a bad outcome fails a case that asserts nothing about it (real claude CLI)", () => {
  it("fails a run that ended in an API error (HTTP 400), in English", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    const outcome = await evaluateCase(
      { input: "hi" },
      0,
      quietCase(() => apiError(400, "messages.0.content: invalid for this test")),
    );
    expect(outcome.passed).toBe(false);
    expect(outcome.message).toContain(
      "the API returned HTTP 400 (invalid_request_error), which ended the run: API Error: 400 messages.0.content: invalid for this test",
    );
    expect(outcome.message).not.toMatch(/error result: success/);
    // Said once, by the outcome scorer's violation.
    expect(outcome.message?.split("the API returned HTTP 400")).toHaveLength(2);
    expect(outcome.result.trials[0]?.scores).toEqual([
      expect.objectContaining({ scorer: "outcome", passed: false, score: 0 }),
    ]);
  });

  it("fails a run that stopped at max turns, and passes it when the case expects that outcome", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    const settings = quietCase(neverDone, { maxTurns: 2 });
    const failed = await evaluateCase({ input: "loop" }, 0, settings);
    expect(failed.passed).toBe(false);
    expect(failed.message).toContain("the agent stopped at the maximum of 2 turns");
    const expected = await evaluateCase({ input: "loop", outcome: "max_turns" }, 0, settings);
    expect(expected.message).toBeUndefined();
    expect(expected.passed).toBe(true);
    expect(toolSequence(expected.runs[0]!.run)).toEqual(["Bash", "Bash"]);
  });

  it("fails any other error result (is_error: the budget ran out)", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    const outcome = await evaluateCase(
      { input: "spend" },
      0,
      quietCase(
        (request) =>
          countToolResults(request) < 2
            ? reply(toolUse("Bash", { command: "echo hi", description: "step" }))
            : reply(text("done")),
        { extraArgs: ["--max-budget-usd", "0.01"] },
      ),
    );
    expect(outcome.passed).toBe(false);
    expect(outcome.message).toContain("the run stopped at its budget: Reached maximum budget ($0.01)");
  });

  it("fails a run that was killed before it wrote a result line", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    const outcome = await evaluateCase(
      { input: "die" },
      0,
      quietCase(killsItself("KILL"), { allowedTools: ["Bash"] }),
    );
    expect(outcome.passed).toBe(false);
    expect(outcome.message).toContain("claude was killed by SIGKILL before it wrote a result line");
    expect(outcome.message).not.toContain("could not be started");
  });

  it("fails a run that exited with a nonzero code without a result line", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    const outcome = await evaluateCase(
      { input: "stop" },
      0,
      quietCase(killsItself("TERM"), { allowedTools: ["Bash"] }),
    );
    expect(outcome.passed).toBe(false);
    expect(outcome.message).toContain("claude exited with code 143 without writing a result line");
  });

  it("fails a run that timed out, and passes it when the case expects a timeout", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    const settings = quietCase((_request, context) => stall(context), { timeoutMs: 4000, killGraceMs: 500 });
    const failed = await evaluateCase({ input: "hang" }, 0, settings);
    expect(failed.passed).toBe(false);
    expect(failed.message).toContain("the run timed out after 4000 ms and was killed");
    const expected = await evaluateCase({ input: "hang", outcome: "timeout" }, 0, settings);
    expect(expected.message).toBeUndefined();
    expect(expected.passed).toBe(true);
  });

  it("calls a run that the trial's own timeout stopped a timeout, not a kill", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    const settings: CaseSettings<Case> = {
      ...quietCase((_request, context) => stall(context), { killGraceMs: 500 }),
      timeout: 4000,
    };
    const failed = await evaluateCase({ input: "hang" }, 0, settings);
    expect(failed.passed).toBe(false);
    expect(failed.message).toContain("the run timed out after 4000 ms and was killed");
    const expected = await evaluateCase({ input: "hang", outcome: "timeout" }, 0, settings);
    expect(expected.message).toBeUndefined();
  });

  it("passes a run that ended normally", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    const outcome = await evaluateCase({ input: "list and read" }, 0, quietCase(listThenRead(project)));
    expect(outcome.message).toBeUndefined();
    expect(outcome.result.trials[0]?.scores).toEqual([
      expect.objectContaining({ scorer: "outcome", passed: true, score: 1 }),
    ]);
  });
});

describe("a wire replay that diverges from its recording (real claude CLI)", () => {
  it("fails the trial with the divergence report as the reason, even when the scorers pass", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    const dir = join(root, "cassettes");
    const replayProject = join(root, "replayed");
    mkdirSync(replayProject);
    writeFileSync(join(replayProject, "a.txt"), "hello from a\n");
    const upstream = await startModelServer({ source: scripted(listThenRead(replayProject)) });
    const settings: CaseSettings<Case> = {
      suite: "divergence",
      task: (prompt, { runAgent }) =>
        runAgent(
          { prompt, options: { claudeBin }, cwd: replayProject, keepSandbox: "never" },
          claudeCodeRunner,
        ),
      // Only the calls are checked, and they are the same: the replay's divergence is what must fail it.
      scorers: [trajectoryScorer({ expected: ["Bash", "Read"], mode: "strict", engine: "builtin" })],
      outputRoot,
      // Whatever happens at the end of the run is not what this test is about.
      trials: 1,
    };
    try {
      const recorded = await evaluateCase({ input: "list and read" }, 0, {
        ...settings,
        cassette: { mode: "record", dir, upstream: upstream.url },
      });
      expect(recorded.message).toBeUndefined();
    } finally {
      await upstream.close();
    }
    // The file the agent reads has changed: the third request (with the Read result) matches nothing.
    writeFileSync(join(replayProject, "a.txt"), "changed since the recording\n");
    const replayed = await evaluateCase({ input: "list and read", outcome: "any" }, 0, {
      ...settings,
      cassette: { mode: "strict", dir },
    });
    expect(replayed.passed).toBe(false);
    expect(replayed.result.trials[0]?.status).toBe("error");
    expect(replayed.message).toContain("@evals/vcr replay diverged at request 3");
    expect(replayed.message).toContain("changed since the recording");
    // The run is kept for the reports, and its calls were the recorded ones.
    expect(toolSequence(replayed.runs[0]!.run)).toEqual(["Bash", "Read"]);
  });
});
