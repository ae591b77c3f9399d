import { existsSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readEvents, readHookErrors, readRun } from "../src/index.js";
import { ENTRIES, runHook, tempDir } from "./spawn-hook.js";

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

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((file) => statSync(join(dir, file)).isFile())
    .sort();
}

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
    expect(filesUnder(outside)).toEqual([]);
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
    expect(filesUnder(outside2)).toEqual([]);
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
    expect((await readRun(runDir)).events.map((event) => event.type)).toContain("tool_call");
  });
});
