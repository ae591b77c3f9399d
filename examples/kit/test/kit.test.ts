import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseCaseText } from "@evals/evaluators";
import { cassetteKey, recordingPath, reply, text } from "@evals/vcr";
import { afterAll, describe, expect, it } from "vitest";
import {
  copyFixture,
  exampleMode,
  FIXTURE_TIME,
  RecordingMissingError,
  ReplayMismatchError,
  recordingIdentity,
  replayedRun,
  runOptionsOf,
} from "../src/index.js";

const scratch = mkdtempSync(join(tmpdir(), "examples-kit-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const caseOf = (yaml: string) => parseCaseText(yaml, join(scratch, "cases", "case.yaml"))[0]!;

describe("copyFixture", () => {
  const fixture = join(scratch, "fixture");
  mkdirSync(join(fixture, "src", "deep"), { recursive: true });
  mkdirSync(join(fixture, ".claude", "skills"), { recursive: true });
  writeFileSync(join(fixture, "src", "b.js"), "b");
  writeFileSync(join(fixture, "src", "deep", "a.js"), "a");
  writeFileSync(join(fixture, ".claude", "skills", "SKILL.md"), "skill");

  it("copies every file, hidden folders included, into a new folder each time", () => {
    const first = copyFixture(fixture, scratch);
    const second = copyFixture(fixture, scratch);
    expect(first).not.toBe(second);
    expect(readFileSync(join(first, "src", "deep", "a.js"), "utf8")).toBe("a");
    expect(readFileSync(join(first, ".claude", "skills", "SKILL.md"), "utf8")).toBe("skill");
    writeFileSync(join(first, "src", "b.js"), "changed");
    expect(readFileSync(join(second, "src", "b.js"), "utf8")).toBe("b");
    expect(readFileSync(join(fixture, "src", "b.js"), "utf8")).toBe("b");
  });

  it("gives the files the same times in every copy, one second apart in path order", () => {
    const times = (root: string) =>
      [".claude/skills/SKILL.md", "src/b.js", "src/deep/a.js", "src"].map(
        (path) => statSync(join(root, path)).mtimeMs,
      );
    const first = times(copyFixture(fixture, scratch));
    expect(times(copyFixture(fixture, scratch))).toEqual(first);
    for (const time of first) expect(time).toBeGreaterThanOrEqual(FIXTURE_TIME);
    // .claude/skills/SKILL.md < src/b.js < src/deep/a.js in path order.
    expect(first[0]).toBeLessThan(first[1]!);
    expect(first[1]).toBeLessThan(first[2]!);
  });

  it("gives an empty folder without a fixture, and says which fixture is missing", () => {
    expect(statSync(copyFixture(undefined, scratch)).isDirectory()).toBe(true);
    expect(() => copyFixture(join(scratch, "nope"), scratch)).toThrow(/fixture .*nope is not a folder/);
  });
});

describe("runOptionsOf and recordingIdentity", () => {
  const base = `id: edits
prompt: Fix the typo.
agent:
  fixture: ../fixture
  allowedTools: [Read, Edit]
  permissionMode: acceptEdits
  env: { NO_COLOR: "1" }
timeout: 90s
`;

  it("maps a case's prompt and agent options to runAgent's", () => {
    expect(runOptionsOf(caseOf(base))).toEqual({
      prompt: "Fix the typo.",
      allowedTools: ["Read", "Edit"],
      permissionMode: "acceptEdits",
      env: { NO_COLOR: "1" },
      timeoutMs: 90_000,
    });
    expect(runOptionsOf(caseOf("id: two\nprompts: [first, second]\n")).prompt).toEqual(["first", "second"]);
  });

  it("keys the recording on the prompt and the options that shape the run, not on the fixture path or env", () => {
    const key = (yaml: string) => cassetteKey(recordingIdentity("suite", caseOf(yaml)));
    const original = key(base);
    expect(key(base.replace("../fixture", "/elsewhere/fixture"))).toBe(original);
    expect(key(base.replace('NO_COLOR: "1"', 'NO_COLOR: "0"'))).toBe(original);
    expect(key(base.replace("Fix the typo.", "Fix the other typo."))).not.toBe(original);
    expect(key(base.replace("[Read, Edit]", "[Read]"))).not.toBe(original);
    expect(key(base.replace("acceptEdits", "default"))).not.toBe(original);
  });
});

describe("replayedRun without a recording", () => {
  const neverRuns = {
    runAgent: () => {
      throw new Error("the agent must not start");
    },
  };
  const evalCase = caseOf("id: lists\nprompt: List the files.\n");

  it("replays by default, and names the missing file and how to record it", async () => {
    expect(exampleMode(undefined, {})).toBe("replay");
    expect(exampleMode(undefined, { VCR_MODE: "record" })).toBe("record");
    const cassettes = join(scratch, "cassettes");
    const error = await replayedRun(neverRuns, {
      suite: "demo",
      evalCase,
      cassettes,
      recordHint: "npx nx run demo:record",
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RecordingMissingError);
    const expected = recordingPath({ ...recordingIdentity("demo", evalCase), dir: cassettes });
    expect((error as RecordingMissingError).file).toBe(expected);
    expect((error as Error).message).toContain("npx nx run demo:record");
  });

  it("names a recording of the same case made for another prompt", async () => {
    const cassettes = join(scratch, "stale-cassettes");
    const older = caseOf("id: lists\nprompt: List every file.\n");
    const stale = recordingPath({ ...recordingIdentity("demo", older), dir: cassettes });
    mkdirSync(join(cassettes, "demo"), { recursive: true });
    writeFileSync(stale, "{}");
    const error = (await replayedRun(neverRuns, { suite: "demo", evalCase, cassettes }).catch(
      (caught: unknown) => caught,
    )) as RecordingMissingError;
    expect(error.others).toEqual([stale]);
    expect(error.message).toContain("another prompt or other agent options");
  });

  it("records from the scripted agent, replays the recording, and fails a run that leaves it", async () => {
    const cassettes = join(scratch, "wire-cassettes");
    const asked: string[] = [];
    // Stands in for the claude CLI: one Messages request with the given text, in the case's folder.
    const cli = (message: string) => ({
      runAgent: async (options: { baseUrl?: string; cwd?: string; prompt: string | string[] }) => {
        asked.push(options.cwd ?? "");
        const response = await fetch(`${options.baseUrl}/v1/messages`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            model: "m",
            max_tokens: 10,
            messages: [{ role: "user", content: message }],
          }),
        });
        const body = (await response.json()) as {
          content?: { text?: string }[];
          error?: { message: string };
        };
        return { answer: body.content?.[0]?.text ?? body.error?.message } as never;
      },
    });
    const agent = () => reply(text("scripted answer"));
    const recorded = (await replayedRun(cli("hello"), {
      suite: "demo",
      evalCase,
      cassettes,
      agent,
      mode: "record",
    })) as unknown as { answer: string };
    expect(recorded.answer).toBe("scripted answer");
    const file = recordingPath({ ...recordingIdentity("demo", evalCase), dir: cassettes });
    expect(statSync(file).isFile()).toBe(true);

    // Replaying needs no agent; each trial gets a folder of its own.
    const replayed = (await replayedRun(cli("hello"), { suite: "demo", evalCase, cassettes })) as unknown as {
      answer: string;
    };
    expect(replayed.answer).toBe("scripted answer");
    expect(asked[1]).not.toBe(asked[0]);

    const error = await replayedRun(cli("something else"), { suite: "demo", evalCase, cassettes }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ReplayMismatchError);
    expect((error as Error).message).toMatch(
      /diverged at request 1[\s\S]*record the case again: VCR_MODE=record/,
    );
  });

  it("drops the case's recordings for earlier prompts when it records", async () => {
    const cassettes = join(scratch, "pruned-cassettes");
    const older = caseOf("id: lists\nprompt: List every file.\n");
    const stale = recordingPath({ ...recordingIdentity("demo", older), dir: cassettes });
    mkdirSync(join(cassettes, "demo"), { recursive: true });
    writeFileSync(stale, "{}");
    const cli = {
      runAgent: async (options: { baseUrl?: string }) => {
        await fetch(`${options.baseUrl}/v1/messages`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }),
        });
        return {} as never;
      },
    };
    await replayedRun(cli, {
      suite: "demo",
      evalCase,
      cassettes,
      agent: () => reply(text("ok")),
      mode: "record",
    });
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(recordingPath({ ...recordingIdentity("demo", evalCase), dir: cassettes }))).toBe(true);
  });

  it("needs the case's scripted agent to record or to run without recordings", async () => {
    for (const mode of ["record", "off"] as const) {
      await expect(
        replayedRun(neverRuns, { suite: "demo", evalCase, cassettes: join(scratch, "c"), mode }),
      ).rejects.toThrow(/case lists has no scripted agent/);
    }
  });
});
