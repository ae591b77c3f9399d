import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type { AgentRunResult } from "@evals/core";
import { listToolCalls } from "@evals/core";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  buildCassette,
  CassetteMissingError,
  cassette,
  cassettePath,
  parseCassette,
  playCassette,
  readCassette,
  resolveVcrMode,
  withCassette,
  writeCassette,
} from "../src/index.js";
import { fixtureResult } from "./fixtures.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "vcr-cassettes-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const identity = (extra: Record<string, unknown> = {}) => ({
  suite: "File tools",
  caseId: "reads then writes",
  prompt: "do the steps",
  options: { allowedTools: ["Bash", "Read"], model: "claude-test" },
  dir,
  ...extra,
});

function liveRun(result: AgentRunResult = fixtureResult()) {
  return vi.fn(async () => result);
}

describe("cassette names", () => {
  it("are suite + case id + a hash of prompt and options, never a timestamp", () => {
    const file = cassettePath(identity());
    expect(file.startsWith(dir)).toBe(true);
    expect(file.slice(dir.length)).toMatch(/^\/File-tools\/reads-then-writes\.[0-9a-f]{8}\.cassette\.json$/);
    expect(cassettePath(identity())).toBe(file);
    // Key order and functions do not matter; the prompt and option values do.
    expect(
      cassettePath(
        identity({ options: { model: "claude-test", allowedTools: ["Bash", "Read"], onLine: () => 1 } }),
      ),
    ).toBe(file);
    expect(cassettePath(identity({ prompt: "do other steps" }))).not.toBe(file);
    expect(cassettePath(identity({ options: { allowedTools: ["Bash"], model: "claude-test" } }))).not.toBe(
      file,
    );
  });

  it("never collide for two case ids with one slug, nor replay a file that another case recorded", async () => {
    const slash = identity({ caseId: "team/x" });
    const dash = identity({ caseId: "team-x" });
    expect(cassettePath(slash)).not.toBe(cassettePath(dash));
    await cassette({ ...slash, mode: "record" }, liveRun(fixtureResult()));
    // team/x's cassette copied over team-x's name: strict fails naming both, auto records team-x anew.
    writeFileSync(cassettePath(dash), readFileSync(cassettePath(slash)));
    const live = liveRun();
    const error = await cassette({ ...dash, mode: "strict" }, live).catch((caught: unknown) => caught);
    expect(live).not.toHaveBeenCalled();
    expect((error as Error).message).toContain('it was recorded for case_id "team/x", not "team-x"');
    await cassette({ ...dash, mode: "auto" }, live);
    expect(live).toHaveBeenCalledTimes(1);
    expect(readCassette(cassettePath(dash)).metadata.case_id).toBe("team-x");
  });
});

describe("resolveVcrMode", () => {
  it("takes the option, else VCR_MODE, else strict on CI and auto elsewhere", () => {
    expect(resolveVcrMode("record", { VCR_MODE: "off" })).toBe("record");
    expect(resolveVcrMode(undefined, { VCR_MODE: " Replay " })).toBe("replay");
    expect(resolveVcrMode(undefined, { CI: "true" })).toBe("strict");
    expect(resolveVcrMode(undefined, { CI: "false" })).toBe("auto");
    expect(resolveVcrMode(undefined, {})).toBe("auto");
    expect(() => resolveVcrMode(undefined, { VCR_MODE: "playback" })).toThrow(
      'VCR_MODE is "playback"; expected one of record, replay, auto, strict, off',
    );
  });
});

describe("cassette()", () => {
  it("auto: records a missing cassette, then replays it without starting the agent", async () => {
    const first = liveRun();
    const recorded = await cassette({ ...identity(), mode: "auto" }, first);
    expect(first).toHaveBeenCalledTimes(1);
    expect(recorded.origin).toBe("live");
    expect(existsSync(cassettePath(identity()))).toBe(true);

    const second = liveRun();
    const replayed = await cassette({ ...identity(), mode: "auto" }, second);
    expect(second).not.toHaveBeenCalled();
    expect(replayed.origin).toBe("cassette");
    expect(replayed.run).toEqual(recorded.run);
    expect(listToolCalls(replayed.run).map((call) => call.name)).toEqual([
      "Bash",
      "Read",
      "Bash",
      "Read",
      "Write",
    ]);
    expect(replayed.output_dir).toBeUndefined();
  });

  it("record: always runs live and overwrites; off: never reads or writes", async () => {
    await cassette({ ...identity(), mode: "record" }, liveRun());
    const other = { ...fixtureResult(), exit_code: 3 };
    const again = liveRun(other);
    await cassette({ ...identity(), mode: "record" }, again);
    expect(again).toHaveBeenCalledTimes(1);
    expect(readCassette(cassettePath(identity())).result.exit_code).toBe(3);

    const live = liveRun();
    const result = await cassette({ ...identity({ caseId: "off case" }), mode: "off" }, live);
    expect(live).toHaveBeenCalledTimes(1);
    expect(result.origin).toBe("live");
    expect(existsSync(cassettePath(identity({ caseId: "off case" })))).toBe(false);
  });

  it("replay: runs live without writing when the cassette is missing", async () => {
    const live = liveRun();
    await cassette({ ...identity(), mode: "replay" }, live);
    expect(live).toHaveBeenCalledTimes(1);
    expect(existsSync(cassettePath(identity()))).toBe(false);
  });

  it("strict: a missing cassette fails with the expected file and how to record it", async () => {
    // A cassette of the same case recorded for another prompt.
    await cassette({ ...identity({ prompt: "old prompt" }), mode: "record" }, liveRun());
    const live = liveRun();
    const error = await cassette({ ...identity(), mode: "strict" }, live).catch((caught: unknown) => caught);
    expect(live).not.toHaveBeenCalled();
    expect(error).toBeInstanceOf(CassetteMissingError);
    const message = (error as Error).message;
    expect(message).toContain(`No cassette for File tools › reads then writes: expected `);
    expect(message).toContain(basename(cassettePath(identity())));
    expect(message).toContain("VCR_MODE=record");
    expect(message).toContain(basename(cassettePath(identity({ prompt: "old prompt" }))));
    // What differs, not only that something does.
    expect(message).toMatch(/it was recorded for prompt "old prompt", not ".+", so it no longer applies/);
  });

  it("strict: of a huge prompt changed at its end, the message shows where it differs, not the pages", async () => {
    const long = "word ".repeat(20_000);
    await cassette({ ...identity({ prompt: `${long}old ending` }), mode: "record" }, liveRun());
    const error = await cassette(
      { ...identity({ prompt: `${long}new ending` }), mode: "strict" },
      liveRun(),
    ).catch((caught: unknown) => caught as Error);
    const message = (error as Error).message;
    expect(message).toMatch(/recorded for prompt …(word )+old ending"…?, not …(word )+new ending"/);
    expect(message.length).toBeLessThan(2_000);
  });

  it("follows VCR_MODE when no mode is given", async () => {
    vi.stubEnv("VCR_MODE", "strict");
    try {
      await expect(cassette(identity(), liveRun())).rejects.toBeInstanceOf(CassetteMissingError);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("does not record a run that timed out, unless asked", async () => {
    const timedOut = { ...fixtureResult(), timed_out: true };
    await cassette({ ...identity(), mode: "auto" }, liveRun(timedOut));
    expect(existsSync(cassettePath(identity()))).toBe(false);
    await cassette({ ...identity(), mode: "auto", shouldRecord: () => true }, liveRun(timedOut));
    expect(readCassette(cassettePath(identity())).result.timed_out).toBe(true);
  });
});

describe("the cassette file", () => {
  it("is pretty, key-sorted JSON with metadata, tool calls, result and run, in a stable order", () => {
    const file = join(dir, "a.cassette.json");
    const built = buildCassette({
      ...identity(),
      caseName: "Reads, then writes",
      result: fixtureResult(),
      recordedAt: "2026-01-02T03:04:05.000Z",
    });
    writeCassette(file, built);
    const text = readFileSync(file, "utf8");
    expect(text.endsWith("}\n")).toBe(true);
    const parsed = JSON.parse(text);
    expect(Object.keys(parsed)).toEqual([
      "version",
      "format",
      "name",
      "metadata",
      "tool_calls",
      "result",
      "run",
    ]);
    expect(parsed.name).toBe("File tools/reads then writes");
    expect(parsed.metadata).toEqual({
      case_id: "reads then writes",
      case_name: "Reads, then writes",
      claude_version: "2.1.330",
      key: basename(cassettePath(identity())).split(".")[1],
      model: expect.any(String),
      options: { allowedTools: ["Bash", "Read"], model: "claude-test" },
      prompt: "do the steps",
      recorded_at: "2026-01-02T03:04:05.000Z",
      suite: "File tools",
    });
    expect(
      parsed.tool_calls.map((call: { name: string; status: string }) => `${call.name}:${call.status}`),
    ).toEqual(["Bash:ok", "Read:ok", "Bash:denied", "Read:error", "Write:denied"]);
    expect(Object.keys(parsed.tool_calls[0])).toEqual([...Object.keys(parsed.tool_calls[0])].sort());
    expect(parsed.result.output_dir).toBeUndefined();
    // The same cassette writes the same bytes.
    writeCassette(join(dir, "b.cassette.json"), built);
    expect(readFileSync(join(dir, "b.cassette.json"), "utf8")).toBe(text);
  });

  it("never contains secrets: sk-ant- tokens, the API key from the env, user patterns", () => {
    vi.stubEnv("ANTHROPIC_API_KEY", "my-live-api-key-123456");
    try {
      const result = fixtureResult();
      const call = result.run.events.find((event) => event.type === "tool_call")!;
      if (call.type === "tool_call") {
        call.input = {
          command: "curl -H 'x-api-key: sk-ant-api03-abcDEF_123' -H my-live-api-key-123456 ACME-7781",
        };
      }
      const file = join(dir, "secret.cassette.json");
      writeCassette(file, buildCassette({ ...identity(), result }), { patterns: [/ACME-\d+/] });
      const text = readFileSync(file, "utf8");
      expect(text).not.toMatch(/sk-ant-|my-live-api-key|ACME-7781/);
      expect(text).toContain("[REDACTED]");
      expect(readCassette(file).tool_calls[0]!.input).toEqual({
        command: "curl -H 'x-api-key: [REDACTED]' -H [REDACTED] [REDACTED]",
      });
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("rejects bad files with the field that is wrong", () => {
    const built = buildCassette({ ...identity(), result: fixtureResult() });
    const file = join(dir, "bad.cassette.json");
    writeFileSync(file, JSON.stringify({ ...built, metadata: { ...built.metadata, prompt: 42 } }));
    expect(() => readCassette(file)).toThrow(`${file} (field metadata.prompt)`);
    writeFileSync(file, JSON.stringify({ ...built, version: 9 }));
    expect(() => readCassette(file)).toThrow("cassette format version 9 is newer");
    writeFileSync(file, "{ not json");
    expect(() => readCassette(file)).toThrow(`${file}: not valid JSON`);
    expect(() => readCassette(join(dir, "nope.json"))).toThrow("cannot read cassette");
  });

  it("catches tool_calls edited by hand without the run", () => {
    const built = buildCassette({ ...identity(), result: fixtureResult() });
    const edited = structuredClone(built);
    edited.tool_calls[1]!.input = { file_path: "/elsewhere" };
    expect(() => parseCassette(edited, "x.json")).toThrow(
      /x\.json \(field tool_calls\.1\): tool_calls does not match run\.events/,
    );
  });
});

describe("playCassette", () => {
  it("is a drop-in for runAgent that replays the file and never starts the agent", async () => {
    const file = join(dir, "play.cassette.json");
    writeCassette(file, buildCassette({ ...identity(), result: fixtureResult() }));
    const runAgent = playCassette(file);
    const result = await runAgent({ prompt: "do the steps" });
    expect(result.origin).toBe("cassette");
    expect(listToolCalls(result.run)).toHaveLength(5);
    // Each call gets its own copy.
    result.run.events.length = 0;
    expect((await runAgent()).run.events.length).toBeGreaterThan(0);
    await expect(runAgent({ prompt: "something else" })).rejects.toThrow(
      'was recorded for the prompt "do the steps", not "something else"',
    );
    await expect(playCassette(join(dir, "missing.json"))()).rejects.toThrow("cannot read cassette");
  });
});

describe("multi-turn cases", () => {
  it("key and check the prompts of a conversation", async () => {
    const turns = ["do the steps", "now undo them"];
    expect(cassettePath(identity({ prompt: turns }))).not.toBe(
      cassettePath(identity({ prompt: turns.join("\n") })),
    );
    await cassette({ ...identity({ prompt: turns }), mode: "record" }, liveRun());
    const runAgent = playCassette(cassettePath(identity({ prompt: turns })));
    expect((await runAgent({ prompt: [...turns] })).origin).toBe("cassette");
    await expect(runAgent({ prompt: [turns[0]!] })).rejects.toThrow("was recorded for the prompt");
  });
});

describe("withCassette", () => {
  it("wraps runAgent: the first call records, the next replays; cwd and env are not part of the key", async () => {
    const runAgent = vi.fn(
      async (_options: { prompt: string; cwd: string; env?: Record<string, string>; model: string }) =>
        fixtureResult(),
    );
    const run = withCassette(runAgent, { suite: "s", caseId: "c", dir, mode: "auto" });
    await run({ prompt: "do the steps", cwd: "/tmp/a", model: "m" });
    const replayed = await run({ prompt: "do the steps", cwd: "/tmp/b", env: { X: "1" }, model: "m" });
    expect(runAgent).toHaveBeenCalledTimes(1);
    expect(replayed.origin).toBe("cassette");
    const file = cassettePath({
      suite: "s",
      caseId: "c",
      prompt: "do the steps",
      options: { model: "m" },
      dir,
    });
    expect(readCassette(file).metadata.options).toEqual({ model: "m" });
    await run({ prompt: "do the steps", cwd: "/tmp/a", model: "other" });
    expect(runAgent).toHaveBeenCalledTimes(2);
  });
});
