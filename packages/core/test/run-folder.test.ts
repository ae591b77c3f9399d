import { copyFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  type AgentRunResult,
  isRunFolder,
  listToolCalls,
  parseHookInput,
  RUN_FOLDER_FILES,
  readRunFolder,
  runFromHookEvents,
  writeRunFolder,
} from "../src/index.js";
import { fixtureHookInputs, fixturesDir } from "./fixtures.js";

const newFolder = () => mkdtempSync(join(tmpdir(), "run-folder-"));
const run = runFromHookEvents(fixtureHookInputs("multi-tool").map(parseHookInput), { runId: "r1" });
const result: AgentRunResult & { error: string } = {
  run_id: "r1",
  run,
  exit_code: 1,
  timed_out: false,
  duration_ms: 12,
  origin: "live",
  error: "claude exited with code 1",
};

/** The multi-tool run's hook inputs as events.jsonl lines the Node hook wrote for run `runId`. */
const capturedLines = (runId: string) =>
  fixtureHookInputs("multi-tool").map((event, seq) =>
    JSON.stringify({
      version: 1,
      captured_at: new Date(1_790_000_000_000 + seq).toISOString(),
      run_id: runId,
      seq,
      event,
    }),
  );

describe("the run folder", () => {
  it("reads back what was written: result (with its extra fields), agent options, case and verdict", async () => {
    const dir = newFolder();
    writeRunFolder(dir, "r1", { result, agent: { permissionMode: "acceptEdits", allowedTools: ["Read"] } });
    writeRunFolder(dir, "r1", {
      case: {
        suite: "s",
        id: "c",
        trial: 0,
        trials: 1,
        value: { id: "c", prompt: "p" },
        grading: {
          scorers: [{ name: "behavior" }],
          verdict: { status: "failed", scores: [{ scorer: "behavior", score: 0, passed: false }] },
        },
      },
    });
    const folder = await readRunFolder(dir);
    expect(folder.source).toBe("result");
    expect(folder.runId).toBe("r1");
    expect(folder.result?.exit_code).toBe(1);
    expect(folder.result?.error).toBe("claude exited with code 1");
    expect(folder.run).toEqual(run);
    expect(folder.manifest?.agent).toEqual({ permissionMode: "acceptEdits", allowedTools: ["Read"] });
    expect(folder.manifest?.case?.grading?.verdict.status).toBe("failed");
    expect(JSON.parse(readFileSync(join(dir, RUN_FOLDER_FILES.manifest), "utf8")).version).toBe(1);
  });

  it("reads JSON files that start with a byte order mark (saved by a Windows editor), as the JSONL ones", async () => {
    const dir = newFolder();
    writeRunFolder(dir, "r1", { result, agent: { permissionMode: "acceptEdits" } });
    const plain = await readRunFolder(dir);
    const json = readdirSync(dir).filter((name) => name.endsWith(".json"));
    expect(json.length).toBeGreaterThan(1);
    for (const name of json) writeFileSync(join(dir, name), `\uFEFF${readFileSync(join(dir, name), "utf8")}`);
    expect(await readRunFolder(dir)).toEqual(plain);
  });

  it("says which version it reads when the manifest is newer", async () => {
    const dir = newFolder();
    writeFileSync(
      join(dir, RUN_FOLDER_FILES.manifest),
      JSON.stringify({ version: 2, run_id: "r", written_at: "" }),
    );
    await expect(readRunFolder(dir)).rejects.toThrow(
      /run-folder\.json \(field version\): .*unsupported run folder version 2/,
    );
  });

  it("rejects a permission mode Claude Code does not have, naming the field", async () => {
    const dir = newFolder();
    writeFileSync(
      join(dir, RUN_FOLDER_FILES.manifest),
      JSON.stringify({ version: 1, run_id: "r", written_at: "", agent: { permissionMode: "yolo" } }),
    );
    await expect(readRunFolder(dir)).rejects.toThrow(/run-folder\.json \(field agent\.permissionMode\)/);
  });

  it("reads a stream-only folder, with the prompts of the manifest", async () => {
    const dir = newFolder();
    copyFileSync(`${fixturesDir}multi-tool/stream.jsonl`, join(dir, RUN_FOLDER_FILES.stream));
    writeRunFolder(dir, "r2", { agent: { prompts: ["do the steps"] } });
    const folder = await readRunFolder(dir);
    expect(folder.source).toBe("stream-json");
    expect(folder.run.events[0]).toMatchObject({ type: "user_message", text: "do the steps" });
    expect(listToolCalls(folder.run)).toHaveLength(5);
  });

  it("names the folder when it holds no run", async () => {
    const dir = newFolder();
    await expect(readRunFolder(dir)).rejects.toThrow(`${dir}: not a run folder`);
    // The capture hook's own log alone is no run.
    writeFileSync(join(dir, RUN_FOLDER_FILES.hookErrors), "");
    expect(isRunFolder(dir)).toBe(false);
  });

  it("keeps the capture hook's problems as notes of a hooks-only run, skipping lines it cannot read", async () => {
    const dir = newFolder();
    const events = capturedLines("h");
    writeFileSync(join(dir, RUN_FOLDER_FILES.events), `${events.join("\n")}\n`);
    writeFileSync(
      join(dir, RUN_FOLDER_FILES.hookErrors),
      `${JSON.stringify({ version: 1, time: "", run_id: "h", pid: 1, kind: "stdin_timeout", message: "stdin stayed open" })}\nnot json\n`,
    );
    const folder = await readRunFolder(dir);
    expect(folder.source).toBe("captured-events");
    expect(folder.run.notes).toContainEqual({
      kind: "other",
      message: "capture hook stdin_timeout: stdin stayed open",
    });
    // Hooks never say a call was denied: inferred by default, as the harness does, unless turned off.
    const denied = (f: { run: typeof folder.run }) =>
      listToolCalls(f.run).filter((c) => c.status === "denied").length;
    expect(denied(folder)).toBeGreaterThan(0);
    expect(denied(await readRunFolder(dir, { inferDenials: false }))).toBe(0);
  });

  it("skips bad event lines when asked, as warnings", async () => {
    const dir = newFolder();
    const events = capturedLines("h");
    writeFileSync(
      join(dir, RUN_FOLDER_FILES.events),
      `${events[0]}\n{"version":1}\n${events.slice(1).join("\n")}\n`,
    );
    await expect(readRunFolder(dir)).rejects.toThrow(/events\.jsonl:2 \(field captured_at\)/);
    const bad: string[] = [];
    const folder = await readRunFolder(dir, {
      onError: "skip",
      onBadLine: (error) => bad.push(error.message),
    });
    expect(bad).toHaveLength(1);
    expect(folder.warnings).toEqual(bad);
    expect(listToolCalls(folder.run)).toHaveLength(5);
    // The run itself says what was left out, so a grade or report of it shows the gap.
    expect(folder.run.notes).toContainEqual({ kind: "parse_error", message: bad[0] });
  });

  it("notes a cut-off last event line (the hook was killed mid-write) on the run, naming file and line", async () => {
    const dir = newFolder();
    const events = capturedLines("h");
    writeFileSync(join(dir, RUN_FOLDER_FILES.events), `${events.join("\n")}\n{"version":1,"capt`);
    const folder = await readRunFolder(dir);
    const cutOff = new RegExp(
      `^${join(dir, RUN_FOLDER_FILES.events)}:${events.length + 1}: the last line is cut off`,
    );
    expect(folder.warnings).toEqual([expect.stringMatching(cutOff)]);
    expect(folder.run.notes.filter((note) => note.kind === "parse_error")).toEqual([
      { kind: "parse_error", message: expect.stringMatching(cutOff) },
    ]);
  });

  it("takes the run id from the events when none of them carries the folder's name (and no manifest names it)", async () => {
    const dir = newFolder();
    const events = capturedLines("h");
    writeFileSync(join(dir, RUN_FOLDER_FILES.events), `${events.join("\n")}\n`);
    const folder = await readRunFolder(dir);
    expect([folder.runId, folder.run.id]).toEqual(["h", "h"]);
  });
});
