import { mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RunBuilder, type RunFolderCase, writeRunFolder } from "@evals/core";
import { fixtureHookInputs, fixturePrompts, fixturesDir } from "@evals/test-kit/claude-fixtures";
import { afterAll, describe, expect, it } from "vitest";
import {
  type EvalCaseInput,
  gradeStoredRun,
  gradeWhileReading,
  loadStoredRun,
  parseCase,
  streamedRunSource,
} from "../src/index.js";

/**
 * A run folder whose run is Claude Code's stream.jsonl is graded while it is read, as a bare
 * stream.jsonl is (streamedRunSource and gradeWhileReading): the verdict is the one grading the
 * folder's whole run gives, and nothing of the run is kept but its result line.
 */
const temp = mkdtempSync(join(tmpdir(), "evals-grade-folder-stream-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const prompts = fixturePrompts("multi-tool");
/** The real multi-tool run's stream-json lines (a hook-blocked Bash, a missing file, a denied Write). */
const lines = readFileSync(join(fixturesDir, "multi-tool", "stream.jsonl"), "utf8")
  .trimEnd()
  .split("\n");
const evalCase = parseCase(
  {
    id: "every-rule",
    prompt: prompts[0] as string,
    rules: { "report-first": {}, "error-handling": {} },
  } satisfies EvalCaseInput,
  "every-rule",
);

/** The capture hook's events.jsonl of the same run, captured under `runId`. */
const capturedEvents = (runId: string) =>
  fixtureHookInputs("multi-tool")
    .map((event, seq) =>
      JSON.stringify({
        version: 2,
        captured_at: new Date(1_790_000_000_000 + seq).toISOString(),
        run_id: runId,
        seq,
        pid: 1,
        event,
      }),
    )
    .join("\n");

/** A run folder holding `files` (name to text). */
function folder(name: string, files: Record<string, string>): string {
  const dir = join(temp, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return dir;
}

/** The folder graded while it is read, and graded whole (loadStoredRun, gradeStoredRun). */
async function gradedBothWays(dir: string) {
  const source = await streamedRunSource(dir, { prompts: ["the prompt --case gives"] });
  expect(source?.file).toBe(join(dir, "stream.jsonl"));
  const streamed = await gradeWhileReading(source!, evalCase);
  const stored = await loadStoredRun(dir, { prompts: ["the prompt --case gives"] });
  return { streamed: streamed!, stored, whole: await gradeStoredRun(stored, evalCase) };
}

describe("a run folder's stream.jsonl is graded while it is read", () => {
  it.each<[string, Record<string, string>]>([
    ["the stream alone", { "stream.jsonl": `${lines.join("\n")}\n` }],
    [
      "a byte order mark, CRLF line ends and a cut-off last line",
      { "stream.jsonl": `\uFEFF${lines.join("\r\n")}\r\n${lines.at(-1)?.slice(0, 40)}` },
    ],
    // The prompt and the run id come from the captured events when no manifest tells them.
    [
      "the capture hook's events beside it",
      { "stream.jsonl": `${lines.join("\n")}\n`, "events.jsonl": capturedEvents("captured-run") },
    ],
  ])("%s: as grading the whole run judges it", async (name, files) => {
    const dir = folder(name.replace(/\W+/g, "-"), files);
    const { streamed, stored, whole } = await gradedBothWays(dir);
    expect(streamed.evaluation).toEqual(whole.evaluation);
    expect(streamed.stored.warnings).toEqual(stored.warnings);
    expect(streamed.stored.run.id).toBe(stored.run.id);
    expect(streamed.toolCalls).toBe(stored.run.events.filter((event) => event.type === "tool_call").length);
    // Every rule visited: the run was not kept (grading the folder whole keeps every event).
    expect(streamed.stored.run.events.map((event) => event.type)).toEqual(["final_result"]);
  });

  it("grades with the manifest's prompt, and the verdict the harness stored (a trial it marked error fails)", async () => {
    const dir = folder("harness-error", { "stream.jsonl": `${lines.join("\n")}\n` });
    const grading: RunFolderCase["grading"] = {
      outcome: "any",
      scorers: [{ name: "outcome" }],
      verdict: { status: "error", scores: [], error: "the replay diverged from its recording" },
    };
    writeRunFolder(dir, "harness-error", {
      agent: { prompts },
      case: { suite: "s", id: "every-rule", trial: 0, trials: 1, value: evalCase, grading },
    });
    const { streamed, whole } = await gradedBothWays(dir);
    expect(streamed.harnessVerdict).toEqual(grading.verdict);
    expect(streamed.evaluation).toEqual(whole.evaluation);
    expect(streamed.evaluation.passed).toBe(false);
    expect(streamed.evaluation.reasons.at(-1)).toContain("the replay diverged from its recording");
  });

  it("names the folder's file and line of a bad line, as for the bare file", async () => {
    const dir = folder("bad-line", {
      "stream.jsonl": `${[...lines.slice(0, 2), '{"type": bad', ...lines.slice(2)].join("\n")}\n`,
    });
    const file = join(dir, "stream.jsonl");
    for (const path of [dir, file]) {
      const source = await streamedRunSource(path);
      await expect(gradeWhileReading(source!, evalCase)).rejects.toThrow(`${file}:3: invalid JSON`);
    }
    await expect(loadStoredRun(dir)).rejects.toThrow(`${file}:3: invalid JSON`);
  });

  it("leaves a run kept in run.json to loadStoredRun, unread", async () => {
    const { run } = await loadStoredRun(join(fixturesDir, "multi-tool", "stream.jsonl"));
    // Beside the stream: the folder's run is the stored one, not the stream's.
    const withRun = folder("with-run", {
      "stream.jsonl": `${lines.join("\n")}\n`,
      "run.json": JSON.stringify(run),
    });
    expect(await streamedRunSource(withRun)).toBeUndefined();
  });
});

/**
 * A run folder the harness wrote (runAgent's result.json, then the case and its verdict in the
 * manifest) is graded while its result.json is read, one event at a time: as grading the whole
 * stored result judges it, with the case given and with the case the folder stores.
 */
describe("a run folder's result.json is graded while it is read", () => {
  /** The real multi-tool run as runAgent stores it, with the exit code and error of a failed CLI. */
  async function harnessFolder(name: string, exitCode: number) {
    const { run } = await loadStoredRun(join(fixturesDir, "multi-tool", "stream.jsonl"), { prompts });
    const dir = folder(name, { "stream.jsonl": `${lines.join("\n")}\n` });
    writeRunFolder(dir, name, {
      result: {
        run_id: name,
        output_dir: dir,
        run,
        exit_code: exitCode,
        timed_out: false,
        duration_ms: 1200,
        origin: "live",
        ...(exitCode === 0 ? {} : { error: `claude exited with code ${exitCode}` }),
      },
      agent: { prompts },
    });
    // As the harness records it: a threshold below some scores, so the harness's judging matters.
    const grading: RunFolderCase["grading"] = {
      scorers: [{ name: "outcome" }, { name: "behavior" }, { name: "tool-usage", threshold: 0.5 }],
      verdict: {
        status: "failed",
        scores: [
          { scorer: "outcome", score: 1, passed: true },
          { scorer: "tool-usage", score: 0.6, passed: true, threshold: 0.5 },
        ],
      },
    };
    writeRunFolder(dir, name, {
      case: { suite: "s", id: "every-rule", trial: 0, trials: 1, value: evalCase, grading },
    });
    return dir;
  }

  it.each([0, 1])(
    "exit code %i: with --case and with its stored case, as grading the whole result judges it",
    async (exitCode) => {
      const dir = await harnessFolder(`harness-exit-${exitCode}`, exitCode);
      const stored = await loadStoredRun(dir);
      expect(stored.format).toBe("run-result");
      for (const given of [evalCase, undefined]) {
        const source = await streamedRunSource(dir);
        expect(source).toMatchObject({ file: join(dir, "result.json"), format: "run-result" });
        const streamed = await gradeWhileReading(source!, given);
        const whole = await gradeStoredRun(stored, given);
        expect(streamed?.evaluation).toEqual(whole.evaluation);
        expect(streamed?.harnessVerdict).toEqual(whole.harnessVerdict);
        expect(streamed?.stored.format).toBe("run-result");
        expect(streamed?.stored.result?.exit_code).toBe(exitCode);
        // Every rule visited: the run's events were not kept.
        expect(streamed?.stored.run.events.map((event) => event.type)).toEqual(["final_result"]);
      }
      // The outcome is judged on the stored exit code, as whole: a failed CLI fails it.
      const judged = await gradeWhileReading((await streamedRunSource(dir))!, evalCase);
      expect(judged?.evaluation.verdicts[0]?.passed).toBe(exitCode === 0);
    },
  );

  it("grades a result.json given alone while reading it, as loading it whole grades it; a stored result of another key order is left to the whole read", async () => {
    const dir = await harnessFolder("alone", 1);
    const file = join(dir, "result.json");
    const source = await streamedRunSource(file);
    // Alone, the file holds no case and no verdict: the manifest beside it is the folder's.
    expect(source).toMatchObject({ file, format: "run-result" });
    expect(source?.manifest).toBeUndefined();
    const streamed = await gradeWhileReading(source!, evalCase);
    const whole = await gradeStoredRun(await loadStoredRun(file), evalCase);
    expect(streamed?.evaluation).toEqual(whole.evaluation);
    // The stored exit code is graded, alone as in its folder (it was lost when read whole).
    expect(whole.evaluation.reasons[0]).toContain("claude exited with code 1");
    expect(streamed?.harnessVerdict).toBeUndefined();
    expect(streamed?.stored.result?.exit_code).toBe(1);
    // Written in one line by another tool, run_id first: still a stored result.
    const compact = join(temp, "compact.json");
    const value = JSON.parse(readFileSync(file, "utf8"));
    writeFileSync(compact, JSON.stringify(value));
    expect((await gradeWhileReading((await streamedRunSource(compact))!, evalCase))?.evaluation).toEqual(
      whole.evaluation,
    );
    // Named in upper case (copied off a case-insensitive disk): still read while graded.
    const upper = join(temp, "RESULT.JSON");
    writeFileSync(upper, JSON.stringify(value));
    expect((await streamedRunSource(upper))?.format).toBe("run-result");
    // A stored result whose run comes first is read whole, its exit code graded all the same.
    const { run, ...rest } = value;
    const runFirst = join(temp, "run-first.json");
    writeFileSync(runFirst, JSON.stringify({ run, ...rest }));
    expect(await streamedRunSource(runFirst)).toBeUndefined();
    const loaded = await loadStoredRun(runFirst);
    expect(loaded.format).toBe("run-result");
    expect((await gradeStoredRun(loaded, evalCase)).evaluation).toEqual(whole.evaluation);
    // A cassette's run without a result's fields is graded as the run alone.
    const cassette = join(temp, "cassette.json");
    writeFileSync(cassette, JSON.stringify({ run, run_id: value.run_id }));
    expect((await loadStoredRun(cassette)).format).toBe("cassette");
    // Its run_id first, it is sniffed as a stored result, but it is none (no exit code): graded as
    // the whole read grades it, a cassette (the stream read refused it, exit_code missing).
    const idFirst = join(temp, "cassette-run-id-first.json");
    writeFileSync(idFirst, JSON.stringify({ run_id: value.run_id, run }, null, 2));
    const sniffed = await streamedRunSource(idFirst);
    expect(sniffed?.format).toBe("run-result");
    expect(await gradeWhileReading(sniffed!, evalCase)).toBeUndefined();
    // Read by itself, it throws what the stream read found (a StoredRunError naming file and field).
    expect(() => sniffed!.read(new RunBuilder([]))).toThrow(
      /cassette-run-id-first\.json \(field exit_code\)/,
    );
    expect((await loadStoredRun(idFirst)).format).toBe("cassette");
    // A result.json whose exit code is broken is refused, alone as in its folder, not taken for a
    // cassette (its exit code dropped).
    const broken = join(temp, "broken-exit-code.json");
    writeFileSync(broken, JSON.stringify({ ...value, exit_code: "one" }, null, 2));
    await expect(loadStoredRun(broken)).rejects.toThrow(
      /broken-exit-code\.json: not a valid AgentRunResult \(field exit_code\)/,
    );
    await expect(gradeWhileReading((await streamedRunSource(broken))!, evalCase)).resolves.toBeUndefined();
  });

  it("refuses a .json array, Run or recording over 256 MiB given alone for its size at once (none is a result)", async () => {
    // Sparse: 257 MiB on disk in name only. `claude --output-format json --verbose` writes an array.
    const file = join(temp, "huge-verbose.json");
    writeFileSync(file, "[");
    truncateSync(file, 257 * 1024 * 1024);
    expect(await streamedRunSource(file)).toBeUndefined();
    await expect(loadStoredRun(file)).rejects.toThrow(/257 MiB is more than a stored run holds/);
    // An object that big may be a result in another key order: read while graded.
    writeFileSync(file, "{");
    truncateSync(file, 257 * 1024 * 1024);
    expect((await streamedRunSource(file))?.format).toBe("run-result");
    // One whose first field is `version` is a Run or a recording, no result: refused for its size
    // (it was read as a result and refused as "one value of more than 64 MiB", at byte 0).
    for (const head of [
      '{"version":1,"format":"evals-vcr-recording",',
      '{\n  "version": 1,\n  "run_id": "r",',
    ]) {
      writeFileSync(file, head);
      truncateSync(file, 257 * 1024 * 1024);
      expect(await streamedRunSource(file)).toBeUndefined();
      await expect(loadStoredRun(file)).rejects.toThrow(/257 MiB is more than a stored run holds/);
    }
  });

  it("leaves a result.json whose run's facts come after its events to the whole read", async () => {
    const dir = await harnessFolder("late-facts", 0);
    const file = join(dir, "result.json");
    const value = JSON.parse(readFileSync(file, "utf8"));
    const { cwd, ...rest } = value.run;
    writeFileSync(file, JSON.stringify({ ...value, run: { ...rest, cwd } }));
    expect(await gradeWhileReading((await streamedRunSource(dir))!, evalCase)).toBeUndefined();
  });
});
