import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { promisify } from "node:util";
import { listToolCalls, type Run } from "@evals/core";
import {
  canRefuseNetwork,
  networkRefused,
  RecordingIntegrityError,
  readRecording,
  recording,
  replaying,
  responsesDigest,
  scriptedGemini,
  startModelServer,
} from "@evals/vcr";
import { beforeAll, describe, expect, it } from "vitest";
import { geminiRunner } from "../src/index.js";
import { toolsScript, workspace } from "./helpers.js";

const outputRoot = join(import.meta.dirname, "..", "test-output");
const file = join(outputRoot, "gemini-tools.recording.json");
const prompt = "Tidy the notes";
/** A Google-shaped key: the recording must not hold it, in a header or anywhere else. */
const apiKey = `AIza${"x".repeat(35)}`;

/** What two runs of the same scenario share: the run without times, session ids, durations and folders. */
function comparable(run: Run): unknown {
  return JSON.parse(
    JSON.stringify(run, (key, value) =>
      ["timestamp", "session_id", "duration_ms", "id", "cwd"].includes(key) && typeof value === "string"
        ? undefined
        : key === "duration_ms"
          ? undefined
          : value,
    ),
  );
}

let recorded: Run;

beforeAll(async () => {
  const upstream = await startModelServer({ source: scriptedGemini(toolsScript), modelApi: "gemini" });
  const source = recording({ upstream: upstream.url, modelApi: "gemini", file, apiKey });
  const server = await startModelServer({ source, modelApi: "gemini" });
  try {
    const result = await geminiRunner.run(
      { prompt, cwd: workspace("record"), baseUrl: server.url, apiKey, outputRoot, timeoutMs: 120_000 },
      {},
    );
    expect(result.exit_code, result.stderr).toBe(0);
    recorded = result.run;
  } finally {
    await server.close();
    await upstream.close();
  }
}, 180_000);

describe("a Gemini run recorded once through @evals/vcr, then replayed", () => {
  it("keeps a redacted recording of every model call, with a digest of the answers", () => {
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain(apiKey);
    const stored = readRecording(file);
    expect(stored.interactions.length).toBe(6);
    expect(
      stored.interactions.every((interaction) => interaction.request.path.includes(":streamGenerateContent")),
    ).toBe(true);
    expect(stored.interactions[0]?.request.headers["x-goog-api-key"]).toBe("[REDACTED]");
    expect(stored.interactions[0]?.response.body.kind).toBe("sse");
    expect(stored.responses_sha256).toBe(responsesDigest(stored));
  });

  it("replays strictly with the network refused, into the same normalized run", async () => {
    if (!canRefuseNetwork())
      throw new Error(
        "this machine cannot refuse the network (unshare -rn): the offline replay cannot be tested here",
      );
    const require = createRequire(import.meta.url);
    const vcrDist = require.resolve("@evals/vcr");
    const runnerDist = join(import.meta.dirname, "..", "dist", "index.js");
    const command = networkRefused([
      process.execPath,
      join(import.meta.dirname, "replay-offline.mjs"),
      JSON.stringify({ vcrDist, runnerDist, recording: file, prompt, outputRoot }),
    ]);
    const { stdout } = await promisify(execFile)(command[0]!, command.slice(1), {
      encoding: "utf8",
      timeout: 170_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    const replay = JSON.parse(stdout.trim().split("\n").pop()!) as {
      run: Run;
      exit_code: number;
      stderr: string;
      report: string;
      divergences: number;
      unplayed: number;
      outbound: string;
    };
    expect(replay.outbound).not.toBe("connected");
    expect(replay.divergences, replay.report).toBe(0);
    expect(replay.unplayed, replay.report).toBe(0);
    expect(replay.exit_code, replay.stderr).toBe(0);
    expect(comparable(replay.run)).toEqual(comparable(recorded));
    expect(listToolCalls(replay.run)[0]?.result?.is_error).toBe(true);
  }, 180_000);

  it("reports a divergence when the run asks something the recording does not hold", async () => {
    const source = replaying(file);
    const server = await startModelServer({ source, modelApi: "gemini" });
    try {
      const result = await geminiRunner.run(
        {
          prompt: "Something else entirely",
          cwd: workspace("diverge"),
          baseUrl: server.url,
          outputRoot,
          timeoutMs: 120_000,
        },
        {},
      );
      expect(source.divergences.length).toBe(1);
      expect(source.divergences[0]?.message).toMatch(/replay diverged at request 1/);
      expect(source.divergences[0]?.message).toContain("Something else entirely");
      expect(result.exit_code).toBe(409 % 256);
      expect(result.run.events.at(-1)).toMatchObject({
        type: "final_result",
        terminal_reason: "api_error",
        api_error_status: 409,
      });
    } finally {
      await server.close();
    }
  }, 180_000);

  it("refuses a recording whose function call was edited, even with its digest recomputed", () => {
    const stored = readRecording(file);
    const first = stored.interactions[0]!;
    const text = JSON.stringify(first.response.body).replace("ls missing-dir", "touch PWNED");
    expect(text).toContain("touch PWNED");
    first.response.body = JSON.parse(text);
    stored.responses_sha256 = responsesDigest(stored);
    const edited = join(outputRoot, "gemini-tools.edited.recording.json");
    writeFileSync(edited, JSON.stringify(stored));
    expect(() => replaying(edited)).toThrow(RecordingIntegrityError);
    expect(() => replaying(edited)).toThrow(/run_shell_command \{"command":"touch PWNED"\}/);
  });
});
