import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { claudeAvailable, claudeCodeRunner } from "@evals/claude-code";
import { listToolCalls } from "@evals/core";
import { type EvalCase, loadCases } from "@evals/evaluators";
import { countToolResults, reply, responsesDigest, type ScriptFunction, text, toolUse } from "@evals/vcr";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCase, runCases } from "../src/index.js";

/*
 * What a suite with its own per-trial workspace needs from runCase and the cassette: run the case
 * in a folder the task prepared (with the task's env beside the case's), mask what differs from one
 * run to the next in its tools' output when replaying, and fail a replay that stopped early.
 */

const claudeBin = resolve(__dirname, "../../../node_modules/.bin/claude");
const haveClaude = claudeAvailable({ claudeBin }).available;

const root = mkdtempSync(join(tmpdir(), "harness-run-case-workspace-"));
const cassettes = join(root, "cassettes");
const outputRoot = join(root, "out");
afterAll(() => rmSync(root, { recursive: true, force: true }));

const CASE_FILE = `id: prints-a-token
prompt: Print a fresh token.
agent:
  fixture: ../project
  allowedTools: [Bash]
  env: { FROM_CASE: "case-value" }
`;

/**
 * Prints where it runs, the fixture, both env values (upper-cased: the values themselves are secrets
 * of the run, redacted from its result) and a token that differs on every run.
 */
const printsAToken: ScriptFunction = (request) =>
  countToolResults(request) === 0
    ? reply(
        toolUse("Bash", {
          command:
            'pwd && ls -A && echo "$FROM_CASE $FROM_TASK" | tr a-z A-Z && echo token-$RANDOM$RANDOM$RANDOM',
          description: "print a token",
        }),
      )
    : reply(text("done"));

let evalCase: EvalCase;
beforeAll(() => {
  mkdirSync(join(root, "cases"), { recursive: true });
  mkdirSync(join(root, "project"));
  writeFileSync(join(root, "project", "a.txt"), "hello\n");
  writeFileSync(join(root, "cases", "token.yaml"), CASE_FILE);
  evalCase = loadCases(join(root, "cases", "token.yaml"))[0]!;
});

const common = { claudeBin } as const;
/** A task with a workspace of its own: the agent's folder inside it, env of its own, removed after scoring. */
const workspaceTask = (folders: string[]) => ({
  task: async (_input: EvalCase, trial: Parameters<typeof runCase>[0] & { case: EvalCase }) => {
    const workspace = mkdtempSync(join(root, "workspace-"));
    const project = join(workspace, "project");
    mkdirSync(project);
    folders.push(project);
    trial.afterScoring(() => rmSync(workspace, { recursive: true, force: true }));
    return runCase(trial, trial.case, {
      cwd: project,
      runAgent: { ...common, env: { FROM_TASK: "task-value" } },
    });
  },
});
const bashOutput = (run: { run: Parameters<typeof listToolCalls>[0] } | undefined) =>
  String(listToolCalls(run!.run)[0]?.result?.output ?? "");

describe.skipIf(!haveClaude)("runCase in a folder the task prepared", () => {
  it("runs there with the fixture copied in and the task's env beside the case's", async () => {
    const folders: string[] = [];
    const result = await runCases([evalCase], {
      agent: claudeCodeRunner,
      suite: "token",
      model: { "prints-a-token": printsAToken },
      ...workspaceTask(folders),
      scorers: [],
      outputRoot,
    });
    expect(result.outcomes[0]?.message).toBeUndefined();
    const output = bashOutput(result.outcomes[0]?.runs[0]);
    expect(output).toContain(folders[0]);
    expect(output).toContain("a.txt");
    expect(output).toContain("CASE-VALUE TASK-VALUE");
  });
});

describe.skipIf(!haveClaude)("cassette replay options", () => {
  const replayed = (cassette: Record<string, unknown>) =>
    runCases([evalCase], {
      agent: claudeCodeRunner,
      suite: "token",
      ...workspaceTask([]),
      scorers: [],
      cassette: { dir: cassettes, mode: "strict", ...cassette },
      outputRoot,
    });

  beforeAll(async () => {
    const recorded = await runCases([evalCase], {
      agent: claudeCodeRunner,
      suite: "token",
      model: { "prints-a-token": printsAToken },
      ...workspaceTask([]),
      scorers: [],
      cassette: { dir: cassettes, mode: "record" },
      outputRoot,
    });
    expect(recorded.outcomes[0]?.message).toBeUndefined();
  });

  it("replay.replace masks what differs between runs; without it the replay diverges", async () => {
    const unmasked = await replayed({});
    expect(unmasked.passed).toBe(false);
    expect(unmasked.outcomes[0]?.result.trials[0]?.error).toMatch(/replay diverged at request 2/);

    const masked = await replayed({ replay: { replace: [[/token-\d+/g, "<token>"]] } });
    expect(masked.outcomes[0]?.message).toBeUndefined();
    expect(masked.passed).toBe(true);
    expect(masked.outcomes[0]?.runs[0]?.origin).toBe("replay");
  });

  it('failOnDivergence: "incomplete" fails a replay that left recorded answers unused', async () => {
    // The recording gets one more answer than the run asks for, as if the agent had stopped early.
    const folder = join(cassettes, "token");
    const [file] = readdirSync(folder);
    const recording = JSON.parse(readFileSync(join(folder, file!), "utf8"));
    const last = recording.interactions.at(-1);
    recording.interactions.push({ ...last, index: recording.interactions.length });
    // As if it had been recorded so: its digest covers the answer added.
    recording.responses_sha256 = responsesDigest(recording);
    writeFileSync(join(folder, file!), JSON.stringify(recording));
    const replace: Array<[RegExp, string]> = [[/token-\d+/g, "<token>"]];

    const lenient = await replayed({ replay: { replace } });
    expect(lenient.passed).toBe(true);

    const strict = await replayed({ replay: { replace }, failOnDivergence: "incomplete" });
    expect(strict.passed).toBe(false);
    expect(strict.outcomes[0]?.result.trials[0]?.error).toMatch(/never/i);
  });
});
