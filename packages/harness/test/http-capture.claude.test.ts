import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { claudeCodeRunner, runAgent, skipIfNoClaude } from "@evals/claude-code";
import { listToolCalls } from "@evals/core";
import { readEvents } from "@evals/hooks";
import { delegate, listThenRead, withModel } from "@evals/test-kit/models";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runCases } from "../src/index.js";

/** The real claude CLI installed at the workspace root (2.1.330). */
const claudeBin = resolve(__dirname, "../../../node_modules/.bin/claude");

let root: string;
let project: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "harness-http-capture-"));
  project = join(root, "project");
  mkdirSync(project);
  writeFileSync(join(project, "a.txt"), "hello from a\n");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));
afterEach(() => {
  delete process.env.EVALS_HOOK_COLLECTOR_DROP;
});

/** A run that delegates to a subagent: each event runAgent captures fires (see STREAM_GAP_HOOK_EVENTS). */
const run = (runId: string, capture?: "http" | "command", settings?: Record<string, unknown>) =>
  withModel(delegate, (server) =>
    runAgent({
      prompt: "delegate",
      claudeBin,
      baseUrl: server.url,
      cwd: project,
      outputRoot: join(root, "out"),
      runId,
      timeoutMs: 90_000,
      ...(capture ? { capture } : {}),
      ...(settings ? { settings } : {}),
    }),
  );

describe("runAgent's HTTP capture (the default) with the real claude CLI", () => {
  it("captures what the stream lacks through the collector, with the hook events in the stream", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    const result = await run("http-default");
    expect(result.error, result.stderr).toBeUndefined();
    const settings = result.command[result.command.indexOf("--settings") + 1]!;
    expect(settings).toBeTruthy();
    expect(result.command).toContain("--include-hook-events");
    const events = await readEvents(result.output_dir!);
    // What the stream and the transcript lack: the Agent call (not the child's Bash), the subagent's start and stop.
    expect(events.map((line) => line.event.hook_event_name)).toEqual([
      "PreToolUse",
      "SubagentStart",
      "SubagentStop",
      "PostToolUse",
    ]);
    // Written by the collector, in this process: no process per event.
    expect(new Set(events.map((line) => line.pid))).toEqual(new Set([process.pid]));
    expect(result.run.sources).toEqual(["stream", "hooks"]);
    expect(listToolCalls(result.run).map((call) => [call.name, call.status])).toEqual([
      ["Agent", "ok"],
      ["Bash", "ok"],
    ]);
    expect(result.run.notes).toEqual([]);
  });

  for (const how of ["500", "close"] as const) {
    it(`fails the run, naming the event, when the collector loses one (${how === "500" ? "answers 500" : "closes the connection"})`, async (ctx) => {
      skipIfNoClaude(ctx, { claudeBin });
      process.env.EVALS_HOOK_COLLECTOR_DROP = how === "500" ? "SubagentStop" : "SubagentStop:close";
      const result = await run(`http-drop-${how}`);
      // The CLI itself succeeded: only the capture is partial.
      expect(result.exit_code).toBe(0);
      expect(result.error).toMatch(
        /^the capture lost 1 of 1 SubagentStop hook event\(s\): the CLI ran the capture hook for them but .*events\.jsonl does not have them, so the run is not graded from a partial capture/,
      );
      const events = await readEvents(result.output_dir!);
      expect(events.map((line) => line.event.hook_event_name)).not.toContain("SubagentStop");
    });
  }

  for (const how of ["500", "close"] as const) {
    it(`fails the run when the first event (the Agent call's PreToolUse) is lost (${how})`, async (ctx) => {
      skipIfNoClaude(ctx, { claudeBin });
      process.env.EVALS_HOOK_COLLECTOR_DROP = how === "500" ? "PreToolUse" : "PreToolUse:close";
      const result = await run(`http-drop-first-${how}`);
      expect(result.error).toMatch(/^the capture lost 1 of 1 PreToolUse hook event\(s\)/);
    });
  }

  it("reads the CLAUDE.md the CLI loaded from the session transcript, and fails the run naming the transcript when it is not there", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    const withNotes = join(root, "instructions");
    mkdirSync(withNotes);
    writeFileSync(join(withNotes, "a.txt"), "hello from a\n");
    writeFileSync(join(withNotes, "CLAUDE.md"), "# Notes\nKeep answers short.\n");
    const listAndRead = (runId: string, extraArgs?: string[]) =>
      withModel(listThenRead(withNotes), (server) =>
        runAgent({
          prompt: "list and read",
          claudeBin,
          baseUrl: server.url,
          cwd: withNotes,
          outputRoot: join(root, "out"),
          runId,
          timeoutMs: 90_000,
          ...(extraArgs ? { extraArgs } : {}),
        }),
      );
    const clean = await listAndRead("http-instructions");
    expect(clean.error, clean.stderr).toBeUndefined();
    expect(clean.run.instructions).toEqual([
      expect.objectContaining({ file_path: join(withNotes, "CLAUDE.md"), load_reason: "session_start" }),
    ]);
    // The CLI is told to keep no session on disk: it exits 0 with no transcript, a run that looks
    // complete but would be graded as if no CLAUDE.md was loaded.
    const lost = await listAndRead("http-instructions-no-transcript", ["--no-session-persistence"]);
    expect(lost.exit_code).toBe(0);
    expect(lost.run.instructions).toBeUndefined();
    expect(lost.error).toMatch(
      /^the run's record is incomplete: claude wrote no session transcript .*claude-config\/projects\/\*\/[0-9a-f-]+\.jsonl \(its arguments have --no-session-persistence: leave it out of extraArgs, or run with capture: false\), so its prompts and the instruction files/,
    );
    expect(lost.incomplete).toBe(lost.error);
  });

  it("counts only its own hooks: the user's command hook on the same events is not a lost event", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    const own = { hooks: [{ type: "command", command: "true" }] };
    const settings = { hooks: { PreToolUse: [{ matcher: "*", ...own }], Stop: [own] } };
    const clean = await run("http-user-hooks", undefined, settings);
    expect(clean.error, clean.stderr).toBeUndefined();
    process.env.EVALS_HOOK_COLLECTOR_DROP = "PreToolUse";
    const dropped = await run("http-user-hooks-drop", undefined, settings);
    // The user's hook ran for the Agent call and the child's Bash; the collector's for the Agent call.
    expect(dropped.error).toMatch(/^the capture lost 1 of 1 PreToolUse hook event\(s\)/);
  });

  it("gives the case a failing verdict naming the lost event, not a grade of the partial run", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    const caseFile = join(root, "lost.yaml");
    writeFileSync(caseFile, "id: delegates\nprompt: delegate\nbehavior:\n  mustUseTools: [Agent]\n");
    process.env.EVALS_HOOK_COLLECTOR_DROP = "PreToolUse";
    const result = await runCases(caseFile, {
      model: { delegates: delegate },
      trials: 1,
      agent: claudeCodeRunner,
      runAgent: { cwd: project, timeoutMs: 90_000, options: { claudeBin } },
      outputRoot: join(root, "out"),
    });
    expect(result.passed).toBe(false);
    const trial = result.outcomes[0]!.result.trials[0]!;
    expect(trial.status).toBe("error");
    expect(trial.error).toMatch(/^the capture lost 1 of 1 PreToolUse hook event\(s\)/);
    // Not graded: no scorer ran on the partial run.
    expect(trial.scores ?? []).toEqual([]);
  });

  it('captures with the command hook when asked (capture: "command")', async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    process.env.EVALS_HOOK_COLLECTOR_DROP = "SubagentStop";
    const result = await run("command-capture", "command");
    expect(result.error, result.stderr).toBeUndefined();
    const events = await readEvents(result.output_dir!);
    expect(events).toHaveLength(4);
    expect(events.every((line) => line.pid !== process.pid)).toBe(true);
  });
});
