import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { claudeAvailable, claudeCodeRunner } from "@evals/claude-code";
import { evaluatorResult, finalResult, listToolCalls, type Scorer, toolSequence } from "@evals/core";
import { type EvalCase, loadCases, scorersForCase } from "@evals/evaluators";
import {
  countToolResults,
  lastToolResult,
  readRecording,
  reply,
  type ScriptFunction,
  systemText,
  text,
  toolUse,
} from "@evals/vcr";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunCasesResult, runCases } from "../src/index.js";

/** The real claude CLI installed at the workspace root (2.1.330). */
const claudeBin = resolve(__dirname, "../../../node_modules/.bin/claude");
const haveClaude = claudeAvailable({ claudeBin }).available;

/*
 * A user's suite as it lies on disk: a YAML case with an agent block (a settings file, an appended
 * system prompt, a subagent, allowed tools, a permission mode) and a fixture folder, all given
 * relative to the case file.
 */
const root = mkdtempSync(join(tmpdir(), "harness-run-case-"));
const suiteDir = join(root, "suite");
const cassettes = join(suiteDir, "cassettes");
const outputRoot = join(root, "out");
afterAll(() => rmSync(root, { recursive: true, force: true }));

const CASE_FILE = `id: leaves-a-note
name: lists the project and leaves a note
prompt: List the project, then leave a note.
agent:
  fixture: ../project
  allowedTools: [Bash, Write]
  env: { NOTE_TEXT: "from-the-case" }
  options:
    permissionMode: acceptEdits
    appendSystemPrompt: "House rule: MARKER-7 applies."
    settings: ../settings.json
    settingSources: []
    agents:
      note-checker: { description: "Checks notes", prompt: "You check notes." }
behavior:
  mustUseTools: [Bash]
  expectedResponse:
    contains: [rule seen, subagent offered, listed a.txt]
expectedTrajectory:
  mode: strict
  calls: [Bash]
expectedViolations:
  - { rule: tool-usage, type: bash-instead-of-write }
`;

/**
 * The scripted agent: lists the folder (the note of an earlier trial would show) and leaves a note
 * there, then says whether the case's system prompt reached it and what the listing held.
 */
const leavesANote: ScriptFunction = (request) => {
  if (countToolResults(request) === 0) {
    return reply(
      toolUse("Bash", {
        command: "ls -A && pwd && echo $NOTE_TEXT > note.txt",
        description: "list, leave a note",
      }),
    );
  }
  const listing = lastToolResult(request)?.text ?? "";
  const said = [
    systemText(request).includes("MARKER-7") ? "rule seen" : "rule missing",
    JSON.stringify(request).includes("Checks notes") ? "subagent offered" : "no subagent",
    listing.includes("a.txt") ? "listed a.txt" : "a.txt missing",
    listing.includes("note.txt") ? "an earlier note leaked" : "no earlier note",
  ];
  return reply(text(said.join(", ")));
};

let evalCase: EvalCase;
beforeAll(() => {
  mkdirSync(join(suiteDir, "cases"), { recursive: true });
  mkdirSync(join(suiteDir, "project"));
  writeFileSync(join(suiteDir, "project", "a.txt"), "hello\n");
  writeFileSync(join(suiteDir, "settings.json"), JSON.stringify({ env: { FROM_SETTINGS: "1" } }));
  writeFileSync(join(suiteDir, "cases", "notes.yaml"), CASE_FILE);
  evalCase = loadCases(join(suiteDir, "cases", "notes.yaml"))[0]!;
});

/** A scorer that looks at the agent's folder: it must still be there when scorers run. */
const noteLeft: Scorer = {
  name: "note left",
  score: ({ run }) => {
    const note = join(run.cwd ?? "/nowhere", "note.txt");
    const ok = existsSync(note) && readFileSync(note, "utf8").trim() === "from-the-case";
    return evaluatorResult({ evaluator: "note left", score: ok ? 1 : 0, passed: ok });
  },
};

const common = { claudeBin, outputRoot } as const;
const cwdsOf = (result: RunCasesResult) => result.outcomes[0]!.runs.map((run) => run!.run.cwd!);
const answersOf = (result: RunCasesResult) =>
  result.outcomes[0]!.runs.map((run) => finalResult(run!.run)?.result ?? "");

describe.skipIf(!haveClaude)("runCases and runCase with the real claude CLI", () => {
  let recorded: RunCasesResult;

  it("runs 3 trials, each in a fresh copy of the fixture that none leaks into and that goes after scoring", async () => {
    const result = await runCases(join(suiteDir, "cases", "notes.yaml"), {
      agent: claudeCodeRunner,
      suite: "notes",
      model: { "leaves-a-note": leavesANote },
      scorers: (value) => [noteLeft, ...scorersForCase(value)],
      trials: 3,
      runAgent: common,
      outputRoot,
    });
    const [outcome] = result.outcomes;
    expect(outcome?.message).toBeUndefined();
    expect(result.passed).toBe(true);
    expect(outcome?.result.stats).toMatchObject({ trials: 3, passed: 3 });
    const cwds = cwdsOf(result);
    expect(new Set(cwds).size).toBe(3);
    for (const [index, run] of outcome!.runs.entries()) {
      // The agent ran in its own copy: pwd printed it, the listing held the fixture and no note.
      const output = String(listToolCalls(run!.run)[0]?.result?.output ?? "");
      expect(output).toContain(cwds[index]);
      expect(output).toContain("a.txt");
      expect(output).not.toContain("note.txt");
      expect(answersOf(result)[index]).toBe("rule seen, subagent offered, listed a.txt, no earlier note");
      // The "note left" scorer saw the note; the copy is gone now that scoring is done.
      expect(outcome!.result.trials[index]!.scores).toContainEqual(
        expect.objectContaining({ scorer: "note left", passed: true }),
      );
      expect(existsSync(cwds[index]!)).toBe(false);
    }
    // The case's own scorers ran (its rules, behavior, trajectory), and the fixture is untouched.
    expect(outcome!.result.trials[0]!.scores.map((score) => score.scorer)).toEqual(
      expect.arrayContaining(["outcome", "note left", "behavior", "trajectory", "tool-usage"]),
    );
    expect(readdirSync(join(suiteDir, "project"))).toEqual(["a.txt"]);
  });

  it("records the scripted model with model + cassette, named by suite and case id, with no absolute path", async () => {
    // A recording of the case for an earlier prompt: stale once the case is recorded again.
    mkdirSync(join(cassettes, "notes"), { recursive: true });
    writeFileSync(join(cassettes, "notes", "leaves-a-note.0badc0de.recording.json"), "{}");
    recorded = await runCases(join(suiteDir, "cases", "notes.yaml"), {
      agent: claudeCodeRunner,
      suite: "notes",
      model: { "leaves-a-note": leavesANote },
      cassette: { dir: cassettes, mode: "record" },
      trials: 1,
      runAgent: common,
      outputRoot,
    });
    expect(recorded.outcomes[0]?.message).toBeUndefined();
    expect(recorded.outcomes[0]?.runs[0]?.origin).toBe("live");
    const files = readdirSync(join(cassettes, "notes"));
    expect(files).toEqual([expect.stringMatching(/^leaves-a-note\.[0-9a-f]{8}\.recording\.json$/)]);
    const recording = readRecording(join(cassettes, "notes", files[0]!));
    expect(recording.metadata).toMatchObject({
      suite: "notes",
      case_id: "leaves-a-note",
      upstream: "loopback",
      options: {
        settings: "../settings.json",
        allowedTools: ["Bash", "Write"],
        permissionMode: "acceptEdits",
      },
    });
    expect(JSON.stringify(recording.metadata)).not.toContain(root);
  });

  it("replays it with no model at all (the script gone): 3 trials, the same verdict, each in its own copy", async () => {
    const replayed = await runCases(join(suiteDir, "cases", "notes.yaml"), {
      agent: claudeCodeRunner,
      suite: "notes",
      cassette: { dir: cassettes, mode: "strict" },
      trials: 3,
      runAgent: common,
      outputRoot,
    });
    const [outcome] = replayed.outcomes;
    expect(outcome?.message).toBeUndefined();
    expect(outcome?.result.status).toBe(recorded.outcomes[0]?.result.status);
    expect(outcome?.runs.map((run) => run?.origin)).toEqual(["replay", "replay", "replay"]);
    expect(new Set(cwdsOf(replayed)).size).toBe(3);
    for (const run of outcome!.runs) expect(toolSequence(run!.run)).toEqual(["Bash"]);
    expect(answersOf(replayed)).toEqual(
      Array(3).fill("rule seen, subagent offered, listed a.txt, no earlier note"),
    );
    for (const cwd of cwdsOf(replayed)) expect(existsSync(cwd)).toBe(false);
  });

  it("fails a replay whose case changed since the recording, naming the missing file", async () => {
    const changed = { ...evalCase, prompt: "List the project, then leave two notes." };
    const result = await runCases([changed], {
      agent: claudeCodeRunner,
      suite: "notes",
      model: { "leaves-a-note": leavesANote },
      cassette: { dir: cassettes, mode: "strict" },
      runAgent: common,
      outputRoot,
    });
    const error = result.outcomes[0]?.result.trials[0]?.error ?? "";
    expect(result.passed).toBe(false);
    expect(error).toMatch(/No wire recording for notes › leaves-a-note/);
    expect(error).toContain("Record it from the suite's scripted model: run with VCR_MODE=record");
    expect(error).toMatch(/Found .*leaves-a-note\.[0-9a-f]{8}\.recording\.json for this case/);
  });

  it("fails a replay that leaves its recording (the fixture changed), with the replay's report", async () => {
    const other = join(suiteDir, "other-project");
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, "a.txt"), "hello\n");
    writeFileSync(join(other, "b.txt"), "new since the recording\n");
    const moved = { ...evalCase, agent: { ...evalCase.agent, fixture: other } };
    const result = await runCases([moved], {
      agent: claudeCodeRunner,
      suite: "notes",
      cassette: { dir: cassettes, mode: "strict" },
      runAgent: common,
      outputRoot,
    });
    expect(result.passed).toBe(false);
    expect(result.outcomes[0]?.result.trials[0]?.error).toMatch(/replay diverged at request 2/);
    expect(result.outcomes[0]?.runs[0]?.origin).toBe("replay");
  });
});

describe.skipIf(!haveClaude)("runCase in git worktree mode", () => {
  it("copies the case's fixture into each trial's own worktree of the repository, which stays clean", async () => {
    const repo = join(root, "repo");
    mkdirSync(repo);
    const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, stdio: "pipe" }).toString();
    git("init", "-q", "-b", "main");
    writeFileSync(join(repo, "README.md"), "# repo\n");
    git("add", ".");
    git("-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "-m", "init");
    const result = await runCases([evalCase], {
      agent: claudeCodeRunner,
      suite: "notes",
      model: { "leaves-a-note": leavesANote },
      worktree: { repo },
      trials: 2,
      runAgent: common,
      outputRoot,
    });
    expect(result.outcomes[0]?.message).toBeUndefined();
    const cwds = cwdsOf(result);
    expect(new Set(cwds).size).toBe(2);
    for (const [index, run] of result.outcomes[0]!.runs.entries()) {
      expect(cwds[index]).not.toBe(repo);
      const listing = String(listToolCalls(run!.run)[0]?.result?.output ?? "");
      expect(listing).toContain("README.md");
      expect(listing).toContain("a.txt");
      expect(listing).not.toContain("note.txt");
    }
    expect(git("status", "--porcelain")).toBe("");
    expect(existsSync(join(repo, "a.txt"))).toBe(false);
  });
});

describe("a model option that is not a function of the case", () => {
  it("says how to give one script to every case", async () => {
    const result = await runCases([evalCase], {
      agent: claudeCodeRunner,
      suite: "notes",
      // A ScriptFunction given where a function of the case is expected: it answers the case.
      model: leavesANote as never,
      runAgent: common,
      outputRoot,
    });
    expect(result.outcomes[0]?.result.trials[0]?.error).toMatch(
      /model must be a function of the case .* write `model: \(\) => script`/,
    );
  });
});

describe("recording without a model", () => {
  it("says how to use a scripted model or a replay when ANTHROPIC_API_KEY is not set", async () => {
    const key = process.env.ANTHROPIC_API_KEY;
    delete process.env.ANTHROPIC_API_KEY;
    try {
      const result = await runCases(join(suiteDir, "cases", "notes.yaml"), {
        agent: claudeCodeRunner,
        suite: "notes",
        cassette: { dir: join(root, "empty-cassettes"), mode: "record" },
        runAgent: common,
        outputRoot,
      });
      const error = result.outcomes[0]?.result.trials[0]?.error ?? "";
      expect(result.passed).toBe(false);
      expect(error).toContain("notes › leaves-a-note: recording needs a model");
      expect(error).toContain("give the suite a scripted model");
      expect(error).toContain("to replay, commit the recording");
      expect(error).toContain("set ANTHROPIC_API_KEY and run with VCR_MODE=record");
      expect(existsSync(join(root, "empty-cassettes"))).toBe(false);
    } finally {
      if (key !== undefined) process.env.ANTHROPIC_API_KEY = key;
    }
  });
});
