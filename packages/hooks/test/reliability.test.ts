import { spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { CapturedEventSchema, runFolderPath, ToolCallEntrySchema } from "@evals/core";
import { afterAll, describe, expect, it } from "vitest";
import {
  HookErrorEntrySchema,
  RESERVE_FILE,
  readEvents,
  readHookErrors,
  readToolCallEntries,
  shellQuote,
} from "../src/index.js";
import { fixtureHookInputs } from "./fixtures.js";
import { badInputs } from "./random-inputs.js";
import { hookBin, runHook, tempDir, withConcurrency } from "./spawn-hook.js";

const temp = tempDir("reliability");
afterAll(temp.cleanup);
let folders = 0;
const freshRoot = () => {
  const dir = join(temp.dir, `root-${++folders}`);
  mkdirSync(dir, { recursive: true });
  return dir;
};
const preToolUse = JSON.stringify(
  fixtureHookInputs("multi-tool").find((i) => i.hook_event_name === "PreToolUse"),
);

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((file) => statSync(join(dir, file)).isFile())
    .sort();
}

describe("never interferes with the agent", () => {
  // 1,000 Node processes: about 20 s on an idle 2-core machine, far more on a busy one.
  it("answers 1,000 malformed or random stdin inputs with exit 0 and an empty stdout", {
    timeout: 600_000,
  }, async () => {
    const root = freshRoot();
    const inputs = badInputs(1000);
    const results = await withConcurrency(
      4,
      inputs.map(
        (input) => () =>
          runHook(input.stdin, { env: { TEST_MODE: "true", TEST_RUN_ID: "fuzz", EVALS_OUTPUT_DIR: root } }),
      ),
    );
    const wrong = results
      .map((result, index) => ({ label: inputs[index]?.label, ...result }))
      .filter(
        (result) =>
          result.code !== 0 || result.signal !== null || result.stdout !== "" || result.stderr !== "",
      );
    expect(wrong).toEqual([]);

    // What could be captured was, as valid JSON lines; everything else is explained in hook-errors.log.
    const runDir = runFolderPath("fuzz", root);
    const lines = readFileSync(join(runDir, "events.jsonl"), "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(inputs.filter((input) => input.capturable).length);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ version: 1, run_id: "fuzz" });
    const errors = await readHookErrors(runDir);
    expect(errors.filter((error) => error.kind === "bad_input")).toHaveLength(
      inputs.filter((input) => !input.capturable).length,
    );
    // Malformed known events are kept (capture never drops real data) and reported by the reader.
    const bad: string[] = [];
    const good = await readEvents(runDir, { onError: "skip", onBadLine: (error) => bad.push(error.message) });
    expect(good.length + bad.length).toBe(lines.length);
    expect(bad.length).toBeGreaterThan(0);
    expect(bad[0]).toMatch(/events\.jsonl:\d+/);
  });

  it("writes nothing at all unless TEST_MODE=true", async () => {
    const root = freshRoot();
    for (const mode of [undefined, "", "false", "1", "TRUE", "yes"]) {
      const result = await runHook(preToolUse, {
        cwd: root,
        env: { TEST_MODE: mode, TEST_RUN_ID: "off", EVALS_OUTPUT_DIR: root, CLAUDE_PROJECT_DIR: root },
      });
      expect(result).toEqual({ code: 0, signal: null, stdout: "", stderr: "" });
    }
    expect(readdirSync(root)).toEqual([]);
  });

  it("exits 0 when the output folder cannot be created", async () => {
    const root = freshRoot();
    writeFileSync(join(root, "a-file"), "not a folder");
    const result = await runHook(preToolUse, {
      env: { TEST_MODE: "true", TEST_RUN_ID: "r", EVALS_OUTPUT_DIR: join(root, "a-file") },
    });
    expect(result).toEqual({ code: 0, signal: null, stdout: "", stderr: "" });
    expect(filesUnder(root)).toEqual(["a-file"]);
  });

  it("exits 0 and logs the error when events.jsonl cannot be written", async () => {
    const root = freshRoot();
    mkdirSync(join(root, "test-output", "r", "events.jsonl"), { recursive: true });
    const result = await runHook(preToolUse, {
      env: { TEST_MODE: "true", TEST_RUN_ID: "r", EVALS_OUTPUT_DIR: root },
    });
    expect(result).toEqual({ code: 0, signal: null, stdout: "", stderr: "" });
    const errors = await readHookErrors(join(root, "test-output", "r"));
    expect(errors).toMatchObject([{ kind: "write_failed", hook_event_name: "PreToolUse", run_id: "r" }]);
    expect(errors[0]?.message).toMatch(/EISDIR/);
  });

  it.runIf(existsSync("/dev/full"))(
    "never writes through events.jsonl when it is a symbolic link",
    async () => {
      // (This test used the link to /dev/full to fake a full disk; disk-full.test.ts uses a real one.)
      const root = freshRoot();
      const runDir = join(root, "test-output", "full");
      mkdirSync(runDir, { recursive: true });
      symlinkSync("/dev/full", join(runDir, "events.jsonl"));
      const result = await runHook(preToolUse, {
        env: { TEST_MODE: "true", TEST_RUN_ID: "full", EVALS_OUTPUT_DIR: root },
      });
      expect(result).toEqual({ code: 0, signal: null, stdout: "", stderr: "" });
      const errors = await readHookErrors(runDir);
      expect(errors.map((error) => error.kind)).toEqual(["write_failed"]);
      expect(errors[0]?.message).toMatch(/ELOOP/);
    },
  );

  it("bounds the wait when stdin is never closed, and keeps what arrived", async () => {
    const root = freshRoot();
    const env = {
      TEST_MODE: "true",
      TEST_RUN_ID: "open",
      EVALS_OUTPUT_DIR: root,
      EVALS_HOOK_STDIN_TIMEOUT_MS: "300",
    };
    const started = Date.now();
    const whole = await runHook(preToolUse, { env, keepStdinOpen: true, timeoutMs: 10_000 });
    const half = await runHook(preToolUse.slice(0, 40), { env, keepStdinOpen: true, timeoutMs: 10_000 });
    expect(Date.now() - started).toBeLessThan(9_000);
    expect(whole).toEqual({ code: 0, signal: null, stdout: "", stderr: "" });
    expect(half).toEqual({ code: 0, signal: null, stdout: "", stderr: "" });
    const runDir = runFolderPath("open", root);
    expect((await readEvents(runDir)).map((line) => line.event)).toEqual([JSON.parse(preToolUse)]);
    expect((await readHookErrors(runDir)).map((error) => error.kind)).toEqual([
      "stdin_timeout",
      "stdin_timeout",
      "bad_input",
    ]);
  });

  it("does not capture an input over EVALS_HOOK_MAX_INPUT_BYTES, and says so", async () => {
    const root = freshRoot();
    const huge = JSON.stringify({
      ...JSON.parse(preToolUse),
      tool_input: { content: "x".repeat(3_000_000) },
    });
    const result = await runHook(huge, {
      env: {
        TEST_MODE: "true",
        TEST_RUN_ID: "big",
        EVALS_OUTPUT_DIR: root,
        EVALS_HOOK_MAX_INPUT_BYTES: "1000000",
      },
    });
    expect(result).toEqual({ code: 0, signal: null, stdout: "", stderr: "" });
    const runDir = runFolderPath("big", root);
    expect(existsSync(join(runDir, "events.jsonl"))).toBe(false);
    expect((await readHookErrors(runDir)).map((error) => error.kind)).toEqual([
      "input_too_large",
      "bad_input",
    ]);
  });
});

describe("every kind of stdin", () => {
  const shell = (script: string, env: Record<string, string>) =>
    spawnSync("sh", ["-c", script], {
      env: { PATH: process.env.PATH, TEST_MODE: "true", ...env },
      encoding: "utf8",
      timeout: 20_000,
    });

  it("reads a shell pipe (FIFO), a regular file, and /dev/null", async () => {
    const root = freshRoot();
    const file = join(root, "payload.json");
    writeFileSync(file, preToolUse);
    const env = { TEST_RUN_ID: "kinds", EVALS_OUTPUT_DIR: root };
    const node = shellQuote(process.execPath);
    const bin = shellQuote(hookBin);
    for (const script of [
      `cat ${file} | ${node} ${bin}`,
      `${node} ${bin} < ${file}`,
      `${node} ${bin} < /dev/null`,
    ]) {
      const result = shell(script, env);
      expect([result.status, result.stdout, result.stderr]).toEqual([0, "", ""]);
    }
    const runDir = runFolderPath("kinds", root);
    expect((await readEvents(runDir)).map((line) => line.event)).toEqual([
      JSON.parse(preToolUse),
      JSON.parse(preToolUse),
    ]);
    expect((await readHookErrors(runDir)).map((error) => error.message)).toEqual(["stdin was empty"]);
  });

  it("stops waiting on a shell pipe that stays open", async () => {
    const root = freshRoot();
    const started = Date.now();
    const result = shell(
      `(printf %s ${shellQuote(preToolUse)}; sleep 8) | ${shellQuote(process.execPath)} ${shellQuote(hookBin)}`,
      {
        TEST_RUN_ID: "open-fifo",
        EVALS_OUTPUT_DIR: root,
        EVALS_HOOK_STDIN_TIMEOUT_MS: "300",
      },
    );
    expect([result.status, result.stdout, result.stderr]).toEqual([0, "", ""]);
    const runDir = runFolderPath("open-fifo", root);
    const [event] = await readEvents(runDir);
    const [error] = await readHookErrors(runDir);
    expect(error?.kind).toBe("stdin_timeout");
    // The hook gave up long before the pipe closed (the shell waits for `sleep 8`); the margin is
    // for a loaded machine, where starting node alone can take seconds.
    expect(Date.parse(error?.time ?? "") - started).toBeLessThan(6000);
    expect(event?.event).toEqual(JSON.parse(preToolUse));
  });
});

describe("huge payloads", () => {
  it("cuts fields over the limit with a marker, lists them, and keeps the line valid", async () => {
    const root = freshRoot();
    const payload = {
      ...JSON.parse(preToolUse),
      hook_event_name: "PostToolUse",
      tool_input: { command: "cat big" },
      tool_response: {
        stdout: "é".repeat(10_000_000),
        stderr: "",
        lines: Array.from({ length: 100_000 }, (_, i) => i),
      },
    };
    const result = await runHook(JSON.stringify(payload), {
      env: { TEST_MODE: "true", TEST_RUN_ID: "huge", EVALS_OUTPUT_DIR: root },
    });
    expect(result).toEqual({ code: 0, signal: null, stdout: "", stderr: "" });
    const runDir = runFolderPath("huge", root);
    const text = readFileSync(join(runDir, "events.jsonl"), "utf8");
    // Two cut fields of 256 KiB and the small rest.
    expect(Buffer.byteLength(text)).toBeLessThan(2 * 256 * 1024 + 8 * 1024);
    const [line] = await readEvents(runDir);
    expect(line?.truncated).toEqual(["event.tool_response.stdout", "event.tool_response.lines"]);
    const response = (line!.event as unknown as { tool_response: { stdout: string; lines: number[] } })
      .tool_response;
    expect(response.stdout).toMatch(/^é+…\[truncated by evals-hook: kept 262144 of 20000000 bytes\]$/);
    expect(response.lines.slice(0, 3)).toEqual([0, 1, 2]);
    expect(JSON.stringify(response.lines).length).toBeLessThanOrEqual(256 * 1024);
    // tool-calls.jsonl carries the same cut output.
    const [entry] = await readToolCallEntries(runDir);
    expect((entry!.tool_output as { stdout: string }).stdout).toBe(response.stdout);
  });

  it("takes the field limit from EVALS_HOOK_MAX_FIELD_BYTES", async () => {
    const root = freshRoot();
    const payload = { ...JSON.parse(preToolUse), tool_input: { command: "a".repeat(5000) } };
    await runHook(JSON.stringify(payload), {
      env: {
        TEST_MODE: "true",
        TEST_RUN_ID: "small",
        EVALS_OUTPUT_DIR: root,
        EVALS_HOOK_MAX_FIELD_BYTES: "1024",
      },
    });
    const [line] = await readEvents(runFolderPath("small", root));
    expect(line?.truncated).toEqual(["event.tool_input.command"]);
    expect((line!.event as unknown as { tool_input: { command: string } }).tool_input.command).toMatch(
      /^a{1024}…\[truncated by evals-hook: kept 1024 of 5000 bytes\]$/,
    );
  });
});

describe("concurrent writers", () => {
  it("16 processes x 500 events leave exactly 8,000 whole, valid lines", async () => {
    const root = freshRoot();
    const writer = fileURLToPath(new URL("./concurrent-writer.mjs", import.meta.url));
    const startAt = Date.now() + 1500;
    const exits = await Promise.all(
      Array.from(
        { length: 16 },
        (_, worker) =>
          new Promise<string>((resolve, reject) => {
            const child = spawn(process.execPath, [writer, String(worker), "500", String(startAt)], {
              env: { PATH: process.env.PATH, TEST_RUN_ID: "concurrent", EVALS_OUTPUT_DIR: root },
              stdio: ["ignore", "ignore", "pipe"],
            });
            let stderr = "";
            child.stderr.setEncoding("utf8").on("data", (chunk) => {
              stderr += chunk;
            });
            const timer = setTimeout(() => child.kill("SIGKILL"), 110_000);
            child.on("error", reject);
            child.on("close", (code) => {
              clearTimeout(timer);
              resolve(`${code} ${stderr}`.trim());
            });
          }),
      ),
    );
    expect(exits).toEqual(Array(16).fill("0"));
    const runDir = runFolderPath("concurrent", root);
    for (const [file, schema] of [
      ["events.jsonl", CapturedEventSchema],
      ["tool-calls.jsonl", ToolCallEntrySchema],
    ] as const) {
      const lines = readFileSync(join(runDir, file), "utf8").split("\n");
      expect(lines.pop()).toBe("");
      expect(lines).toHaveLength(8000);
      const seen = new Set<string>();
      for (const line of lines) {
        const value = schema.parse(JSON.parse(line)) as {
          event?: { tool_input: unknown };
          tool_input?: unknown;
        };
        const input = (value.event?.tool_input ?? value.tool_input) as { worker: number; i: number };
        seen.add(`${input.worker}:${input.i}`);
      }
      expect(seen.size).toBe(8000);
    }
    // Each writer's own lines are in seq order.
    const events = await readEvents(runDir);
    for (let worker = 0; worker < 16; worker++) {
      const mine = events.filter((line) => line.event.session_id === `session-${worker}`);
      expect(
        mine.map((line) => (line.event as unknown as { tool_input: { i: number } }).tool_input.i),
      ).toEqual(Array.from({ length: 500 }, (_, i) => i));
    }
    expect(await readHookErrors(runDir)).toEqual([]);
  });

  it("concurrent hook processes with large payloads never tear a line", async () => {
    const root = freshRoot();
    const base = JSON.parse(preToolUse);
    const results = await withConcurrency(
      16,
      Array.from(
        { length: 96 },
        (_, i) => () =>
          runHook(
            JSON.stringify({
              ...base,
              tool_use_id: `t${i}`,
              tool_input: { i, pad: "z".repeat(150_000 + i) },
            }),
            {
              env: { TEST_MODE: "true", TEST_RUN_ID: "parallel", EVALS_OUTPUT_DIR: root },
            },
          ),
      ),
    );
    expect(results.every((result) => result.code === 0 && result.stdout === "")).toBe(true);
    const events = await readEvents(runFolderPath("parallel", root));
    expect(new Set(events.map((line) => (line.event as { tool_use_id: string }).tool_use_id)).size).toBe(96);
  });
});

describe("TEST_RUN_ID confinement", () => {
  const crafted = [
    "../escape",
    "../../../../tmp/escape",
    "/abs/path",
    "a/b",
    "a\\b",
    "..",
    ".",
    "ok..ok",
    "~",
    "$(touch pwned)",
    "C:\\Windows",
    "white space",
    "new\nline",
    "é",
    "%2e%2e",
    "x".repeat(129),
    "",
  ];

  it("never uses an unsafe id as a path: every file stays under <root>/test-output/<safe id>/", async () => {
    const outer = freshRoot();
    const root = join(outer, "inner");
    mkdirSync(root);
    for (const id of crafted) {
      const result = await runHook(preToolUse, {
        cwd: root,
        env: { TEST_MODE: "true", TEST_RUN_ID: id, EVALS_OUTPUT_DIR: root },
      });
      expect(result).toEqual({ code: 0, signal: null, stdout: "", stderr: "" });
    }
    expect(readdirSync(outer)).toEqual(["inner"]);
    const files = filesUnder(root);
    for (const file of files) {
      const [top, runId, name, ...rest] = file.split(sep);
      expect(top).toBe("test-output");
      expect(runId).toMatch(/^(invalid-[0-9a-f]{8}|session-[0-9a-f-]{36})$/);
      expect(["events.jsonl", "tool-calls.jsonl", "hook-errors.log", RESERVE_FILE]).toContain(name);
      expect(rest).toEqual([]);
    }
    // Each refused id was recorded, with the reason, in its fallback folder.
    const runIds = new Set(files.map((file) => file.split(sep)[1] as string));
    expect(runIds.size).toBeGreaterThan(0);
    const reasons: string[] = [];
    for (const runId of runIds) {
      for (const error of await readHookErrors(join(root, "test-output", runId))) {
        expect(error.kind).toBe("run_id");
        reasons.push(error.message);
      }
    }
    // Said once per fallback folder; every crafted id had its own.
    expect(reasons).toHaveLength(crafted.length);
    expect(reasons.some((reason) => reason.includes("is empty"))).toBe(true);
    expect(reasons.some((reason) => reason.includes("characters (at most 128)"))).toBe(true);
    expect(relative(root, join(root, "test-output"))).toBe("test-output");
  });

  it("falls back to session-<id> when TEST_RUN_ID is unset", async () => {
    const root = freshRoot();
    await runHook(preToolUse, { env: { TEST_MODE: "true", EVALS_OUTPUT_DIR: root } });
    const session = JSON.parse(preToolUse).session_id as string;
    const runDir = join(root, "test-output", `session-${session}`);
    expect(await readEvents(runDir)).toHaveLength(1);
    expect((await readHookErrors(runDir)).map((error) => error.message)).toEqual([
      `TEST_RUN_ID is not set; captured to session-${session} instead`,
    ]);
    HookErrorEntrySchema.parse((await readHookErrors(runDir))[0]);
  });
});

describe("output root", () => {
  it("is EVALS_OUTPUT_DIR, else CLAUDE_PROJECT_DIR, else the cwd", async () => {
    const [a, b, c] = [freshRoot(), freshRoot(), freshRoot()];
    const env = { TEST_MODE: "true", TEST_RUN_ID: "where" };
    await runHook(preToolUse, { cwd: c, env: { ...env, EVALS_OUTPUT_DIR: a, CLAUDE_PROJECT_DIR: b } });
    await runHook(preToolUse, { cwd: c, env: { ...env, CLAUDE_PROJECT_DIR: b } });
    await runHook(preToolUse, { cwd: c, env });
    for (const root of [a, b, c]) {
      expect(filesUnder(root)).toEqual([
        join("test-output", "where", RESERVE_FILE),
        join("test-output", "where", "events.jsonl"),
        join("test-output", "where", "tool-calls.jsonl"),
      ]);
    }
  });
});
