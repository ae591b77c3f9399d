import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Run } from "@evals/core";
import {
  addFile,
  applyPatch,
  canRefuseNetwork,
  execCommand,
  lastToolOutput,
  type ModelServer,
  networkRefused,
  RecordingIntegrityError,
  readRecording,
  recording,
  replaying,
  response,
  scriptedResponses,
  startModelServer,
} from "@evals/vcr";
import { afterEach, describe, expect, it } from "vitest";
import { runCodex } from "../src/index.js";

// Record a real codex run from a scripted Responses API once, then replay it strictly: with the
// network refused (a namespace with only loopback), the run must be the recorded one.
const TIMEOUT = 180_000;
const PROMPT = "Count the lines of data.txt and write the count to count.md";
const FILES = { "data.txt": "one\ntwo\nthree\n" };
const servers: ModelServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function folder(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** The scripted model behind the recording (a new one per recording: it counts its calls). */
const model = () =>
  scriptedResponses((request, context) => {
    if (context.call === 0) return response("Counting.", execCommand("wc -l < data.txt"));
    if (context.call === 1) {
      const count = /Output:\n\s*(\d+)/.exec(lastToolOutput(request)?.text ?? "")?.[1] ?? "?";
      return response(applyPatch(addFile("count.md", `${count} lines\n`)));
    }
    return response("data.txt has 3 lines; written to count.md.");
  });

/** What a replay must reproduce: each event's kind, tool, input, output and text, the cwd masked. */
function comparable(run: Run, cwd: string): unknown[] {
  const mask = (value: unknown) =>
    JSON.parse(
      JSON.stringify(value ?? null)
        .split(cwd)
        .join("<cwd>"),
    );
  return run.events.map((event) => {
    if (event.type === "tool_call")
      return { type: event.type, id: event.id, name: event.name, input: mask(event.input) };
    if (event.type === "tool_result")
      return { type: event.type, id: event.id, output: mask(event.output), is_error: event.is_error };
    if (event.type === "final_result")
      return {
        type: event.type,
        subtype: event.subtype,
        result: event.result,
        usage: event.usage,
        turns: event.num_turns,
      };
    return { type: event.type, text: "text" in event ? event.text : undefined };
  });
}

async function record(file: string): Promise<{ run: Run; cwd: string }> {
  const upstream = await startModelServer({ source: model() });
  servers.push(upstream);
  const server = await startModelServer({
    source: recording({ upstream: upstream.url, file, modelApi: "openai-responses" }),
  });
  const cwd = folder("codex-rec-");
  for (const [name, content] of Object.entries(FILES)) writeFileSync(join(cwd, name), content);
  const result = await runCodex({
    prompt: PROMPT,
    cwd,
    baseUrl: server.url,
    outputRoot: folder("codex-out-"),
  });
  await server.close();
  expect(result.error, result.stderr).toBeUndefined();
  expect(readFileSync(join(cwd, "count.md"), "utf8")).toBe("3 lines\n");
  return { run: result.run, cwd };
}

describe("a codex run recorded once", () => {
  it(
    "replays strictly with the network refused to the same normalized run",
    async () => {
      const file = join(folder("codex-rec-file-"), "run.recording.json");
      const recorded = await record(file);
      const stored = readRecording(file);
      expect(stored.interactions).toHaveLength(3);
      expect(stored.model).toBe("gpt-5.5");
      // The dummy key the CLI sent is not in the file.
      expect(readFileSync(file, "utf8")).not.toContain("evals-offline-key");

      const input = JSON.stringify({
        vcrDist: resolve(__dirname, "../../vcr/dist/index.js"),
        codexDist: resolve(__dirname, "../dist/index.js"),
        recording: file,
        prompt: PROMPT,
        files: FILES,
      });
      const script = resolve(__dirname, "replay-offline.mjs");
      const command = canRefuseNetwork()
        ? networkRefused([process.execPath, script, input])
        : [process.execPath, script, input];
      const [bin, ...args] = command;
      const output = execFileSync(bin!, args, { encoding: "utf8", timeout: 120_000 });
      const replay = JSON.parse(output.trim().split("\n").pop()!);
      if (canRefuseNetwork()) {
        expect(replay.interfaces).toEqual(["lo"]);
        expect(replay.outbound).toBe("ENETUNREACH");
      }
      expect(replay.error, replay.report).toBeUndefined();
      expect(replay.divergences, replay.report).toBe(0);
      expect(replay.unplayed).toBe(0);
      expect(comparable(replay.run, replay.cwd)).toEqual(comparable(recorded.run, recorded.cwd));
    },
    TIMEOUT,
  );

  it(
    "reports where a replay leaves the recording, and refuses an edited recording",
    async () => {
      const file = join(folder("codex-rec-file-"), "run.recording.json");
      await record(file);
      const source = replaying(file);
      const server = await startModelServer({ source });
      servers.push(server);
      const cwd = folder("codex-div-");
      for (const [name, content] of Object.entries(FILES)) writeFileSync(join(cwd, name), content);
      const result = await runCodex({
        prompt: "Another prompt",
        cwd,
        baseUrl: server.url,
        outputRoot: folder("codex-out-"),
      });
      expect(source.divergences).toHaveLength(1);
      expect(source.divergences[0]!.message).toMatch(/replay diverged at request 1/);
      expect(source.report()).toMatch(/Another prompt/);
      expect(result.run.events.at(-1)).toMatchObject({
        type: "final_result",
        is_error: true,
        terminal_reason: "api_error",
      });

      // An answer's command changed by hand: refused before anything is served.
      const text = readFileSync(file, "utf8").replace("wc -l < data.txt", "touch PWNED");
      writeFileSync(file, text);
      expect(() => replaying(file)).toThrow(RecordingIntegrityError);
    },
    TIMEOUT,
  );
});
