import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { identityMetadata } from "../src/cassette-file.js";
import {
  apiKeyEnv,
  CassetteMissingError,
  type ModelServer,
  ReplayDivergenceError,
  recordingPath,
  reply,
  scripted,
  startModelServer,
  text,
  wireCassette,
  wireSource,
} from "../src/index.js";
import { recordingFromInteractions, writeRecording } from "../src/recording.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "vcr-wire-mode-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("wireSource", () => {
  it("picks record, replay, live or a clear failure by mode and by whether the recording exists", async () => {
    const upstream = await startModelServer({ source: scripted(() => reply(text("hi"))) });
    try {
      const identity = { suite: "suite", caseId: "case", prompt: "p", dir, upstream: upstream.url };
      expect(recordingPath(identity)).toMatch(/suite\/case\.[0-9a-f]{8}\.recording\.json$/);
      expect(wireSource({ ...identity, mode: "auto" }).action).toBe("record");
      expect(wireSource({ ...identity, mode: "replay" }).action).toBe("live");
      expect(wireSource({ ...identity, mode: "off" }).source.name).toBe("passthrough");
      expect(() => wireSource({ ...identity, mode: "strict" })).toThrow(CassetteMissingError);

      // Record once through the source auto mode gives.
      const { source, file } = wireSource({ ...identity, mode: "auto" });
      const server = await startModelServer({ source });
      await fetch(`${server.url}/v1/messages`, {
        method: "POST",
        body: JSON.stringify({ model: "m", messages: [] }),
      });
      await server.close();
      expect(file).toBe(recordingPath(identity));

      expect(wireSource({ ...identity, mode: "auto" }).action).toBe("replay");
      expect(wireSource({ ...identity, mode: "strict" }).action).toBe("replay");
      expect(wireSource({ ...identity, mode: "record" }).action).toBe("record");
      expect(wireSource({ ...identity, mode: "off" }).action).toBe("live");
    } finally {
      await upstream.close();
    }
  });

  it("replays a recording written by hand with writeRecording", async () => {
    const model = await startModelServer({ source: scripted(() => reply(text("recorded answer"))) });
    await fetch(`${model.url}/v1/messages`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "x" }] }),
    });
    await model.close();
    const identity = { suite: "s", caseId: "c", prompt: "x", dir };
    // The recording says which case it is of: a file of another case's is never replayed for this one.
    writeRecording(
      recordingPath(identity),
      recordingFromInteractions(model.interactions, { metadata: identityMetadata(identity) }),
    );
    const { source, action } = wireSource({ ...identity, mode: "strict" });
    expect(action).toBe("replay");
    const server = await startModelServer({ source });
    try {
      const answer = await fetch(`${server.url}/v1/messages`, {
        method: "POST",
        body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "x" }] }),
      });
      expect(JSON.parse(await answer.text()).content[0].text).toBe("recorded answer");
    } finally {
      await server.close();
    }
  });
});

describe("wireSource for the CLI's model API", () => {
  it("records the real API the CLI speaks with that API's key (not Anthropic's)", () => {
    const saved = { ...process.env };
    process.env.ANTHROPIC_API_KEY = "sk-ant-not-for-openai";
    delete process.env.OPENAI_API_KEY;
    delete process.env.GEMINI_API_KEY;
    try {
      const identity = { suite: "suite", caseId: "case", prompt: "p", dir };
      expect(() => wireSource({ ...identity, mode: "record", modelApi: "openai-responses" })).toThrow(
        "forwarding to https://api.openai.com needs an API key: set OPENAI_API_KEY",
      );
      expect(() => wireSource({ ...identity, mode: "off", modelApi: "gemini" })).toThrow(
        "forwarding to https://generativelanguage.googleapis.com needs an API key: set GEMINI_API_KEY",
      );
      expect(wireSource({ ...identity, mode: "record" }).action).toBe("record");
      expect([apiKeyEnv(), apiKeyEnv("openai-responses"), apiKeyEnv("gemini")]).toEqual([
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "GEMINI_API_KEY",
      ]);
    } finally {
      process.env = saved;
    }
  });
});

describe("wireCassette", () => {
  async function ask(server: ModelServer, prompt: string) {
    const response = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: prompt }] }),
    });
    return JSON.parse(await response.text());
  }

  it("records on the first run, replays on the next, and throws with the report when a replay diverges", async () => {
    const upstream = await startModelServer({
      source: scripted((request) => reply(text(`echo ${JSON.stringify(request.messages)}`))),
    });
    try {
      const identity = {
        suite: "s",
        caseId: "c",
        prompt: "p",
        dir,
        upstream: upstream.url,
        mode: "auto" as const,
      };
      const first = await wireCassette(
        identity,
        async (server) => (await ask(server, "one")).content[0].text,
      );
      expect(first).toMatchObject({ action: "record", divergences: [], unplayed: [] });
      expect(existsSync(first.file)).toBe(true);

      const second = await wireCassette(
        identity,
        async (server) => (await ask(server, "one")).content[0].text,
      );
      expect(second.action).toBe("replay");
      expect(second.result).toBe(first.result);
      expect(upstream.interactions).toHaveLength(1);

      const error = await wireCassette(identity, (server) => ask(server, "two")).catch(
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(ReplayDivergenceError);
      expect((error as ReplayDivergenceError).message).toContain(
        'messages[0].content[0].text: recorded "one", got "two"',
      );
      expect((error as ReplayDivergenceError).outcome.divergences).toHaveLength(1);

      const incomplete = await wireCassette(
        { ...identity, failOnDivergence: "incomplete" },
        async () => "nothing asked",
      ).catch((caught: unknown) => caught);
      expect((incomplete as ReplayDivergenceError).outcome.unplayed).toEqual([0]);
    } finally {
      await upstream.close();
    }
  });

  it("marks a replayed AgentRunResult origin replay (runAgent says live), and leaves a recorded one live", async () => {
    const upstream = await startModelServer({ source: scripted(() => reply(text("hi"))) });
    try {
      const identity = { suite: "s", caseId: "origin", prompt: "p", dir, upstream: upstream.url };
      // What runAgent returns, whatever answered the CLI.
      const run = async (server: ModelServer) => {
        await ask(server, "one");
        return { run_id: "r", origin: "live" as const, exit_code: 0 };
      };
      const recorded = await wireCassette({ ...identity, mode: "record" }, run);
      expect(recorded.result.origin).toBe("live");
      const replayed = await wireCassette({ ...identity, mode: "replay" }, run);
      expect(replayed.action).toBe("replay");
      expect(replayed.result).toEqual({ run_id: "r", origin: "replay", exit_code: 0 });
    } finally {
      await upstream.close();
    }
  });

  it("leaves no recording behind when the run throws", async () => {
    const upstream = await startModelServer({ source: scripted(() => reply(text("hi"))) });
    try {
      const identity = {
        suite: "s",
        caseId: "broken",
        prompt: "p",
        dir,
        upstream: upstream.url,
        mode: "record" as const,
      };
      await expect(
        wireCassette(identity, async (server) => {
          await ask(server, "one");
          throw new Error("the run crashed");
        }),
      ).rejects.toThrow("the run crashed");
      expect(existsSync(recordingPath(identity))).toBe(false);
    } finally {
      await upstream.close();
    }
  });
});
