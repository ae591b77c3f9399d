import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { claudeCodeRunner, skipIfNoClaude } from "@evals/claude-code";
import { listToolCalls, toolSequence } from "@evals/core";
import { trajectoryScorer } from "@evals/evaluators";
import { listThenRead } from "@evals/test-kit/models";
import { countToolResults, reply, scripted, startModelServer, text, toolUse } from "@evals/vcr";
import { commandScorer } from "@evals/worktree";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CaseSettings, evaluateCase } from "../src/index.js";

/** The real claude CLI installed at the workspace root (2.1.330). */
const claudeBin = resolve(__dirname, "../../../node_modules/.bin/claude");

let root: string;
let project: string;
let outputRoot: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "harness-options-"));
  project = join(root, "project");
  outputRoot = join(root, "out");
  mkdirSync(project);
  writeFileSync(join(project, "a.txt"), "hello from a\n");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("describeEval's trial options with the real claude CLI", () => {
  it("serves every trial from a fresh scripted model, each trial its own run", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    const outcome = await evaluateCase({ input: "list and read" }, 0, {
      suite: "model option",
      model: () => scripted(listThenRead(project)),
      task: (prompt, { runAgent }) =>
        runAgent({ prompt, options: { claudeBin }, cwd: project }, claudeCodeRunner),
      scorers: [trajectoryScorer({ expected: ["Bash", "Read"], mode: "strict", engine: "builtin" })],
      trials: 2,
      outputRoot,
    });
    expect(outcome.message).toBeUndefined();
    expect(outcome.result.stats).toMatchObject({ trials: 2, passed: 2 });
    const [first, second] = outcome.runs;
    expect(first?.run_id).not.toBe(second?.run_id);
    for (const result of outcome.runs) {
      expect(toolSequence(result!.run)).toEqual(["Bash", "Read"]);
      expect(result!.output_dir).toBe(join(outputRoot, "test-output", result!.run_id));
      expect(existsSync(join(result!.output_dir!, "stream.jsonl"))).toBe(true);
    }
  });

  it("runs every trial in its own git worktree, leaving the repository untouched", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    const repo = join(root, "repo");
    mkdirSync(repo);
    const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, stdio: "pipe" });
    git("init", "-q", "-b", "main");
    writeFileSync(join(repo, "README.md"), "# repo\n");
    git("add", ".");
    git("-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "-m", "init");
    const outcome = await evaluateCase({ input: "make a file" }, 0, {
      suite: "worktree option",
      model: () =>
        scripted((request) =>
          countToolResults(request) === 0
            ? reply(
                toolUse("Bash", { command: "touch made-by-agent.txt && pwd", description: "make a file" }),
              )
            : reply(text("made")),
        ),
      task: (prompt, { runAgent }) =>
        runAgent({ prompt, options: { claudeBin }, allowedTools: ["Bash"] }, claudeCodeRunner),
      // An outcome grader: it runs in the trial's worktree, so it must score before the worktree goes.
      scorers: [commandScorer({ name: "file-made", command: ["test", "-f", "made-by-agent.txt"] })],
      trials: 2,
      worktree: { repo },
      outputRoot,
    });
    expect(outcome.message).toBeUndefined();
    for (const trial of outcome.result.trials) {
      expect(trial.scores).toEqual([
        expect.objectContaining({ scorer: "outcome", passed: true, score: 1 }),
        expect.objectContaining({ scorer: "file-made", passed: true, score: 1 }),
      ]);
    }
    const cwds = outcome.runs.map((result) => result!.run.cwd!);
    expect(new Set(cwds).size).toBe(2);
    for (const [i, result] of outcome.runs.entries()) {
      expect(cwds[i]).not.toBe(repo);
      expect(String(listToolCalls(result!.run)[0]?.result?.output).trim()).toBe(cwds[i]);
      // The worktree's changes were captured next to the run's files.
      expect(readdirSync(result!.output_dir!)).toEqual(
        expect.arrayContaining(["outcome.json", "stream.jsonl"]),
      );
    }
    expect(existsSync(join(repo, "made-by-agent.txt"))).toBe(false);
    expect(git("status", "--porcelain").toString()).toBe("");
  });

  it("records the model's side once, then replays it for real CLI runs with no model at all", async (ctx) => {
    skipIfNoClaude(ctx, { claudeBin });
    const dir = join(root, "cassettes");
    const upstream = await startModelServer({ source: scripted(listThenRead(project)) });
    const settings: CaseSettings<{ input: string }> = {
      suite: "cassette option",
      task: (prompt, { runAgent }) =>
        runAgent({ prompt, options: { claudeBin }, cwd: project }, claudeCodeRunner),
      scorers: [trajectoryScorer({ expected: ["Bash", "Read"], mode: "strict", engine: "builtin" })],
      outputRoot,
    };
    try {
      const recorded = await evaluateCase({ input: "list and read" }, 0, {
        ...settings,
        cassette: { mode: "record", dir, upstream: upstream.url },
      });
      expect(recorded.message).toBeUndefined();
      expect(recorded.runs.map((result) => result!.origin)).toEqual(["live"]);
    } finally {
      await upstream.close();
    }
    const files = readdirSync(join(dir, "cassette-option"));
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/\.recording\.json$/);

    // The upstream is gone: only the recording can answer, and the CLI really runs both trials.
    const replayed = await evaluateCase({ input: "list and read" }, 0, {
      ...settings,
      cassette: { mode: "strict", dir },
      trials: 2,
    });
    expect(replayed.message).toBeUndefined();
    // Replayed, not live: no cost was spent on them, their model is the recording's.
    expect(replayed.runs.map((result) => result!.origin)).toEqual(["replay", "replay"]);
    for (const trial of replayed.result.trials) {
      expect(trial.origin).toBe("replay");
      expect(trial.cost_usd).toBeUndefined();
      expect(trial.recorded_cost_usd).toBeGreaterThan(0);
    }
    expect(replayed.result.cost_usd).toBeUndefined();
    for (const result of replayed.runs) {
      expect(toolSequence(result!.run)).toEqual(["Bash", "Read"]);
      expect(JSON.stringify(listToolCalls(result!.run)[1]?.result?.output)).toContain("hello from a");
    }
  });

  it("refuses a replayed result cassette for several trials, which would be copies of one run", async () => {
    const outcome = await evaluateCase({ input: "x" }, 0, {
      suite: "result cassette",
      task: (prompt, { runAgent }) => runAgent({ prompt, options: { claudeBin } }, claudeCodeRunner),
      scorers: [],
      trials: 2,
      cassette: { level: "result", mode: "strict", dir: join(root, "none") },
      outputRoot,
    });
    expect(outcome.passed).toBe(false);
    expect(outcome.message).toContain("every trial would be the same copy");
  });
});
