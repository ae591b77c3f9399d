import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listToolCalls } from "@evals/core";
import { describe, expect, it } from "vitest";
import { type ReplaySource, recording, replaying, startModelServer } from "../src/index.js";
import { runClaude } from "./claude.js";

// Opt-in: records a session against the real Messages API, then replays it offline. Runs only with
// VCR_LIVE=1 and ANTHROPIC_API_KEY set (it costs a few cents); VCR_LIVE_MODEL picks the model.
const live = process.env.VCR_LIVE === "1" && Boolean(process.env.ANTHROPIC_API_KEY);

describe.skipIf(!live)("a live session (VCR_LIVE=1 and ANTHROPIC_API_KEY)", () => {
  it("is recorded through the proxy without the key, and replayed offline with the same trajectory", async () => {
    const dir = mkdtempSync(join(tmpdir(), "vcr-live-"));
    const file = join(dir, "live.recording.json");
    const prompt = "Use the Bash tool to run `echo live-vcr`, then reply with the single word done.";
    const args = [
      "--allowedTools",
      "Bash",
      ...(process.env.VCR_LIVE_MODEL ? ["--model", process.env.VCR_LIVE_MODEL] : []),
    ];
    try {
      const recorder = await startModelServer({ source: recording({ file }) });
      const recorded = await runClaude({ prompt, env: recorder.env(), args, timeoutMs: 180_000 });
      await recorder.close();
      expect(recorded.exitCode, recorded.stderr).toBe(0);
      expect(readFileSync(file, "utf8")).not.toContain(process.env.ANTHROPIC_API_KEY!);

      const server = await startModelServer({ source: replaying(file) });
      const replayed = await runClaude({ prompt, env: server.env(), args });
      await server.close();
      expect((server.source as ReplaySource).divergences).toEqual([]);
      const calls = (run: typeof recorded.run) => listToolCalls(run).map((call) => [call.name, call.input]);
      expect(calls(replayed.run)).toEqual(calls(recorded.run));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
