import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CAPTURED_EVENT_VERSION,
  listToolCalls,
  parseJsonl,
  readRunFolder,
  readRunFolderResult,
  runFolderPath,
  runFromStreamJson,
} from "@evals/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getToolCalls, getToolSequence, readStoredRun } from "../src/index.js";
import { fixtureHookInputs, fixturesDir } from "./fixtures.js";

function fixtureStream(name: "subagent"): Record<string, unknown>[] {
  const file = `${fixturesDir}${name}/stream.jsonl`;
  return parseJsonl(readFileSync(file, "utf8"), file);
}

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "hooks-stored-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function runDir(id: string): string {
  const dir = join(root, "test-output", id);
  mkdirSync(dir, { recursive: true });
  return dir;
}

describe("getToolCalls / getToolSequence by run id", () => {
  it("read the reconciled run runAgent stored", async () => {
    const run = runFromStreamJson(fixtureStream("subagent"), { prompts: ["delegate"] });
    const result = {
      run_id: "stored-1",
      run,
      exit_code: 0,
      timed_out: false,
      duration_ms: 10,
      origin: "live",
      command: ["claude"],
    };
    writeFileSync(join(runDir("stored-1"), "result.json"), JSON.stringify(result));
    expect(await getToolSequence("stored-1", { root })).toEqual(["Agent", "Bash"]);
    expect(await getToolCalls("stored-1", { root })).toEqual(listToolCalls(run));
    expect(await getToolSequence("stored-1", { root, agent: "main" })).toEqual(["Agent"]);
    expect(readRunFolderResult(runFolderPath("stored-1", root))).toMatchObject({ run_id: "stored-1" });
  });

  it("fall back to the capture hook's events for a run the harness did not start", async () => {
    const lines = fixtureHookInputs("multi-tool").map((event, seq) => ({
      version: CAPTURED_EVENT_VERSION,
      captured_at: new Date(1_790_000_000_000 + seq).toISOString(),
      run_id: "hooks-only",
      seq,
      event,
    }));
    writeFileSync(
      join(runDir("hooks-only"), "events.jsonl"),
      lines.map((line) => JSON.stringify(line)).join("\n"),
    );
    expect(await getToolSequence("hooks-only", { root })).toEqual(["Bash", "Read", "Bash", "Read", "Write"]);
    expect((await readStoredRun("hooks-only", { root })).sources).toEqual(["hooks"]);
  });

  it("read a hooks-only run through the run folder reader, the capture hook's problems as notes", async () => {
    const dir = runDir("hooks-noted");
    const lines = fixtureHookInputs("multi-tool").map((event, seq) => ({
      version: CAPTURED_EVENT_VERSION,
      captured_at: new Date(1_790_000_000_000 + seq).toISOString(),
      run_id: "hooks-noted",
      seq,
      event,
    }));
    writeFileSync(join(dir, "events.jsonl"), lines.map((line) => JSON.stringify(line)).join("\n"));
    const problem = {
      version: 1,
      time: "2026-11-23T12:00:00.000Z",
      run_id: "hooks-noted",
      pid: 7,
      kind: "bad_input",
      message: "stdin was not JSON",
      hook_event_name: "PreToolUse",
    };
    writeFileSync(join(dir, "hook-errors.log"), `${JSON.stringify(problem)}\n`);
    const run = await readStoredRun("hooks-noted", { root });
    expect(run).toEqual((await readRunFolder(dir)).run);
    expect(run.notes).toContainEqual({
      kind: "other",
      message: "capture hook bad_input (PreToolUse): stdin was not JSON",
    });
    // A stream beside the events is read the same way `evals grade` reads the folder.
    copyFileSync(`${fixturesDir}multi-tool/stream.jsonl`, join(dir, "stream.jsonl"));
    expect((await readStoredRun("hooks-noted", { root })).sources).toEqual(
      (await readRunFolder(dir)).run.sources,
    );
  });

  it("say where the hook should have written when a run left nothing", async () => {
    runDir("nothing");
    await expect(readStoredRun("nothing", { root })).rejects.toThrow(
      /No captured events at .*test-output\/nothing\/events\.jsonl/,
    );
  });

  it("say what is wrong with a broken result file, and refuse ids that are paths", async () => {
    writeFileSync(join(runDir("broken"), "result.json"), JSON.stringify({ run_id: "broken", run: {} }));
    await expect(getToolCalls("broken", { root })).rejects.toThrow(/result\.json \(field run\.version\)/);
    await expect(getToolCalls("../etc", { root })).rejects.toThrow(
      /Invalid run id "..\/etc": it contains "\/"/,
    );
  });
});
