import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ReadRunFolderOptions, readRunFolder } from "@evals/core";
import { afterAll, describe, expect, it } from "vitest";
import { readEvents, readHookErrors } from "../src/index.js";
import { badInputs } from "./random-inputs.js";
import { ENTRIES, runHook, tempDir, withConcurrency } from "./spawn-hook.js";

/** The run in a run folder, read by @evals/core's readRunFolder (the one reader of run folders). */
const runIn = async (dir: string, options?: ReadRunFolderOptions) => (await readRunFolder(dir, options)).run;

const temp = tempDir("hardening");
afterAll(temp.cleanup);
let folders = 0;
const freshRoot = () => {
  const dir = join(temp.dir, `root-${++folders}`);
  mkdirSync(dir, { recursive: true });
  return dir;
};
const payload = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    session_id: "s-1",
    cwd: "/project",
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_use_id: "toolu_1",
    tool_input: { command: "ls" },
    ...extra,
  });
const quiet = { code: 0, signal: null, stdout: "", stderr: "" };

describe.each(ENTRIES)("the %s entry", (entry) => {
  it("exits 0 at once when the output root cannot be written (under /proc or /sys)", async () => {
    // Node's recursive mkdir loops forever where mkdir(2) answers ENOENT for a parent that exists:
    // the hook used to spin there, deaf to SIGTERM, until this test's timeout killed it.
    for (const root of ["/proc", "/proc/self/none", "/sys/evals"]) {
      const result = await runHook(payload(), {
        entry,
        env: { TEST_MODE: "true", TEST_RUN_ID: "r", EVALS_OUTPUT_DIR: root },
        timeoutMs: 15_000,
      });
      expect({ root, ...result }).toEqual({ root, ...quiet });
    }
  });

  it("logs one line in the hook error log when only the run folder cannot be made", async () => {
    const root = freshRoot();
    mkdirSync(join(root, "test-output"));
    writeFileSync(join(root, "test-output", "r"), "a file where the run folder should be");
    const result = await runHook(payload(), {
      entry,
      env: { TEST_MODE: "true", TEST_RUN_ID: "r", EVALS_OUTPUT_DIR: root },
    });
    expect(result).toEqual(quiet);
    const errors = await readHookErrors(join(root, "test-output"));
    expect(errors).toMatchObject([{ kind: "write_failed", run_id: "r", hook_event_name: "PreToolUse" }]);
    expect(errors[0]?.message).toMatch(/test-output\/r/);
  });

  it("never writes through a symbolic link at test-output/<run id> or test-output", async () => {
    const root = freshRoot();
    const outside = freshRoot();
    mkdirSync(join(root, "test-output"));
    symlinkSync(outside, join(root, "test-output", "linked"));
    const viaRunDir = await runHook(payload(), {
      entry,
      env: { TEST_MODE: "true", TEST_RUN_ID: "linked", EVALS_OUTPUT_DIR: root },
    });
    expect(viaRunDir).toEqual(quiet);
    expect(readdirSync(outside)).toEqual([]);
    const errors = await readHookErrors(join(root, "test-output"));
    expect(errors).toMatchObject([{ kind: "write_failed", run_id: "linked" }]);
    expect(errors[0]?.message).toMatch(/symbolic link/);

    const root2 = freshRoot();
    const outside2 = freshRoot();
    symlinkSync(outside2, join(root2, "test-output"));
    const viaOutput = await runHook(payload(), {
      entry,
      env: { TEST_MODE: "true", TEST_RUN_ID: "r", EVALS_OUTPUT_DIR: root2 },
    });
    expect(viaOutput).toEqual(quiet);
    // Not even a folder.
    expect(readdirSync(outside2)).toEqual([]);
  });

  it("keeps an event nested 10,000 levels deep, cut at 256 levels and marked", async () => {
    const root = freshRoot();
    const deep = `${"[".repeat(10_000)}"bottom"${"]".repeat(10_000)}`;
    // Built as text: JSON.stringify itself overflows the stack on it.
    const input = payload().replace('{"command":"ls"}', `{"command":"ls","deep":${deep}}`);
    const result = await runHook(input, {
      entry,
      env: { TEST_MODE: "true", TEST_RUN_ID: "deep", EVALS_OUTPUT_DIR: root },
    });
    expect(result).toEqual(quiet);
    const runDir = join(root, "test-output", "deep");
    const [line] = await readEvents(runDir);
    expect(line?.event).toMatchObject({ hook_event_name: "PreToolUse", tool_input: { command: "ls" } });
    expect(line?.truncated).toEqual([expect.stringMatching(/^event\.tool_input\.deep\[0\]\[0\]/)]);
    // Whatever reads it next can serialize it.
    const json = JSON.stringify(line);
    expect(json).toContain("nested deeper than 256 levels");
    expect(json).not.toContain("bottom");
    expect((await runIn(runDir)).events.map((event) => event.type)).toContain("tool_call");
  });
});

describe.runIf(ENTRIES.includes("shell"))("the shell entry with malformed inputs", () => {
  it("answers 200 malformed or random inputs quietly, and each is captured or explained", {
    timeout: 600_000,
  }, async () => {
    const root = freshRoot();
    const inputs = badInputs(200, 7);
    const results = await withConcurrency(
      4,
      inputs.map(
        (input, index) => () =>
          runHook(input.stdin, {
            entry: "shell",
            env: { TEST_MODE: "true", TEST_RUN_ID: `fuzz-${index}`, EVALS_OUTPUT_DIR: root },
          }),
      ),
    );
    const unexplained: string[] = [];
    for (const [index, input] of inputs.entries()) {
      expect({ label: input.label, ...results[index] }).toEqual({ label: input.label, ...quiet });
      const runDir = join(root, "test-output", `fuzz-${index}`);
      const badInputs: unknown[] = [];
      const badLines: unknown[] = [];
      const events = existsSync(join(runDir, "events.jsonl"))
        ? await readEvents(runDir, {
            onError: "skip",
            onBadLine: (error) => badLines.push(error),
            onBadInput: (problem) => badInputs.push(problem),
          })
        : [];
      const logged = (await readHookErrors(runDir)).some((error) => error.kind === "bad_input");
      // Captured (an event, or a known event the reader rejects field by field), or explained: by
      // the Node entry in hook-errors.log, or by the reader as a bad input.
      const explained = input.capturable
        ? events.length + badLines.length === 1 && badInputs.length === 0
        : events.length === 0 && badLines.length === 0 && (logged || badInputs.length === 1);
      if (!explained) unexplained.push(input.label);
    }
    expect(unexplained).toEqual([]);
  });
});

describe.runIf(ENTRIES.includes("shell"))("the shell entry under concurrency", () => {
  it("8 writers x 40 calls, some over the field limit, leave 320 whole lines", {
    timeout: 600_000,
  }, async () => {
    const root = freshRoot();
    const calls = Array.from({ length: 8 }, (_, worker) =>
      Array.from({ length: 40 }, (_, i) => () => {
        // Mostly small, some over PIPE_BUF, one in ten over the 256 KiB field limit (the Node entry's).
        const size = i % 10 === 0 ? 300_000 : 100 + ((i * 7919 + worker * 104_729) % 20_000);
        return runHook(payload({ tool_input: { worker, i, pad: "x".repeat(size) } }), {
          entry: "shell",
          env: { TEST_MODE: "true", TEST_RUN_ID: "many", EVALS_OUTPUT_DIR: root },
        });
      }),
    );
    // Each writer's calls one after another, the writers side by side.
    const results = await Promise.all(
      calls.map(async (mine) => {
        const out = [];
        for (const call of mine) out.push(await call());
        return out;
      }),
    );
    expect(results.flat().filter((result) => result.code !== 0 || result.stdout !== "")).toEqual([]);
    const events = await readEvents(join(root, "test-output", "many"));
    const seen = new Set(
      events.map((line) => {
        const input = (line.event as unknown as { tool_input: { worker: number; i: number } }).tool_input;
        return `${input.worker}:${input.i}`;
      }),
    );
    expect(seen.size).toBe(320);
    expect(events.filter((line) => line.version === 1)).toHaveLength(32);
  });
});
