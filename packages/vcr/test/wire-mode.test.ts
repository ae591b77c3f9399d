import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  CassetteMissingError,
  recordingFromInteractions,
  recordingPath,
  reply,
  scripted,
  startModelServer,
  text,
  wireSource,
  writeRecording,
} from "../src/index.js";

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
    writeRecording(recordingPath(identity), recordingFromInteractions(model.interactions));
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
