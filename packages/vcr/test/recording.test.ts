import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  createRedactor,
  type Interaction,
  parseRecording,
  readRecording,
  recordedRequest,
  recording,
  reply,
  scripted,
  startModelServer,
  text,
  toolUse,
} from "../src/index.js";
import {
  bodyText,
  recordingFromInteractions,
  storeBody,
  writeRecording,
  writeSecretFreeFile,
} from "../src/recording.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "vcr-recording-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const SYSTEM = [{ type: "text" as const, text: "You are Claude Code. ".repeat(100) }];
const TOOLS = [{ name: "Bash", description: "Runs a command. ".repeat(100), input_schema: {} }];

async function exchange(url: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const response = await fetch(`${url}/v1/messages?beta=true`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "sk-test-dummy", ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

describe("stored bodies", () => {
  it("keep an SSE stream as readable events and give back the same bytes", async () => {
    const upstream = await startModelServer({
      source: scripted(() => reply(text('hé \u2028 "q"'), toolUse("Read", { file_path: "/a" }))),
    });
    try {
      const { text: sse } = await exchange(upstream.url, {
        model: "m",
        stream: true,
        messages: [{ role: "user", content: "x" }],
      });
      const stored = storeBody(sse, "text/event-stream; charset=utf-8");
      expect(stored.kind).toBe("sse");
      if (stored.kind !== "sse") return;
      expect(stored.events[0]).toMatchObject({ event: "message_start", data: { type: "message_start" } });
      expect(bodyText(stored)).toBe(sse);
    } finally {
      await upstream.close();
    }
  });

  it("fall back to the exact text when a re-serialization would differ", () => {
    const spaced = 'event: ping\ndata: {"type": "ping"}\n\n';
    const stored = storeBody(spaced, "text/event-stream");
    expect(stored).toEqual({ kind: "sse", events: [{ event: "ping", data_text: '{"type": "ping"}' }] });
    expect(bodyText(stored)).toBe(spaced);
    const odd = ": comment\r\nevent: ping\r\ndata: {}\r\n\r\n";
    expect(storeBody(odd, "text/event-stream")).toEqual({ kind: "text", text: odd });
    expect(storeBody('{"a":1}', "application/json")).toEqual({ kind: "json", json: { a: 1 } });
    expect(storeBody('{ "a": 1 }', "application/json")).toEqual({ kind: "text", text: '{ "a": 1 }' });
    expect(storeBody("", "")).toEqual({ kind: "text", text: "" });
  });
});

describe("recordings", () => {
  function interactions(): Interaction[] {
    return [0, 1].map((index) => ({
      index,
      source: "record",
      duration_ms: 3,
      request: {
        method: "POST",
        path: "/v1/messages?beta=true",
        headers: {
          "x-api-key": "sk-ant-api03-SECRET",
          "user-agent": "claude-cli/2.1.330 (external, sdk-cli)",
          host: "x",
        },
        body: {
          model: "claude-test",
          system: SYSTEM,
          tools: TOOLS,
          messages: [
            { role: "user", content: [{ type: "text", text: `step ${index} ${"context ".repeat(200)}` }] },
          ],
        },
      },
      response: {
        status: 200,
        headers: { "content-type": "application/json", date: "now" },
        body: '{"ok":true}',
      },
    }));
  }

  it("store the repeated system prompt, tools and long texts once, and resolve them back", () => {
    const built = recordingFromInteractions(interactions(), { recordedAt: "2026-01-01T00:00:00.000Z" });
    expect(built).toMatchObject({
      version: 1,
      format: "evals-vcr-recording",
      claude_version: "2.1.330",
      model: "claude-test",
    });
    expect(Object.keys(built.shared)).toEqual(["system-1", "tools-1", "text-1", "text-2"]);
    expect(built.interactions[1]!.request.body).toMatchObject({
      system: { $shared: "system-1" },
      tools: { $shared: "tools-1" },
    });
    expect(built.interactions[0]!.request.headers).toEqual({
      "user-agent": "claude-cli/2.1.330 (external, sdk-cli)",
      "x-api-key": "[REDACTED]",
    });
    expect(built.interactions[0]!.response.headers).toEqual({ "content-type": "application/json" });
    expect(recordedRequest(built, built.interactions[1]!).body).toEqual(interactions()[1]!.request.body);
  });

  it("write pretty JSON that reads back, and reject bad files with the field", () => {
    const file = join(dir, "r.recording.json");
    writeRecording(file, recordingFromInteractions(interactions()));
    const text = readFileSync(file, "utf8");
    expect(text).toMatch(/^\{\n {2}"version": 1,\n {2}"format": "evals-vcr-recording",/);
    expect(readRecording(file).interactions).toHaveLength(2);
    const value = JSON.parse(text);
    value.interactions[1].response.status = "200";
    writeFileSync(file, JSON.stringify(value));
    expect(() => readRecording(file)).toThrow(`${file} (field interactions.1.response.status)`);
    expect(() => parseRecording({ ...value, version: 2 }, "r.json")).toThrow(
      "recording format version 2 is newer",
    );
    const broken = recordingFromInteractions(interactions());
    broken.shared = {};
    expect(() => recordedRequest(broken, broken.interactions[0]!)).toThrow(
      'refers to missing shared "system-1"',
    );
  });

  it("redact keys, tokens, the env key and user patterns, and refuse to write a leaking file", () => {
    vi.stubEnv("ANTHROPIC_API_KEY", "live-key-0123456789");
    try {
      const leaky = interactions();
      leaky[0]!.request.body!.messages[0]!.content =
        "token sk-ant-oat01-XYZ_9 and live-key-0123456789 and ACME-4411";
      leaky[0]!.response.body = '{"echo":"sk-ant-api03-OTHER"}';
      leaky[0]!.request.headers.authorization = "Bearer abc";
      const file = join(dir, "redacted.recording.json");
      writeRecording(file, recordingFromInteractions(leaky, { redact: { patterns: [/ACME-\d+/] } }));
      const written = readFileSync(file, "utf8");
      expect(written).not.toMatch(/sk-ant-|live-key-0123456789|ACME-4411|Bearer abc/);
      expect(written).toContain('"authorization": "[REDACTED]"');
      const redactor = createRedactor({ patterns: ["password1"] });
      expect(() => writeSecretFreeFile(join(dir, "x.json"), '{"a":"password1"}', redactor)).toThrow(
        /refusing to write .*x\.json: it would contain secrets/,
      );
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("redact ANTHROPIC_CUSTOM_HEADERS (header and value) and GITHUB_TOKEN, from this process's env or the run's", () => {
    vi.stubEnv("GITHUB_TOKEN", "gh-planted-token-0123");
    vi.stubEnv("ANTHROPIC_CUSTOM_HEADERS", "X-Planted-Header: planted-header-value");
    try {
      const leaky = interactions();
      leaky[0]!.request.headers["x-planted-header"] = "planted-header-value";
      leaky[0]!.request.body!.messages[0]!.content =
        "GITHUB_TOKEN=gh-planted-token-0123 run-token=run-env-token-4567 header planted-header-value";
      const file = join(dir, "env.recording.json");
      writeRecording(
        file,
        recordingFromInteractions(leaky, { redact: { env: { MY_RUN_TOKEN: "run-env-token-4567" } } }),
        { env: { MY_RUN_TOKEN: "run-env-token-4567" } },
      );
      const written = readFileSync(file, "utf8");
      expect(written).not.toMatch(/gh-planted-token-0123|run-env-token-4567|planted-header-value/);
      expect(written).toContain('"x-planted-header": "[REDACTED]"');
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

describe("the recording source", () => {
  it("forwards to the upstream with its own API key and writes the redacted recording on close", async () => {
    const upstream = await startModelServer({ source: scripted(() => reply(text("hi"))) });
    const file = join(dir, "live.recording.json");
    const recorder = await startModelServer({
      source: recording({
        upstream: upstream.url,
        apiKey: "sk-ant-api03-REALKEY",
        file,
        metadata: { case: "x" },
      }),
    });
    try {
      const answer = await exchange(recorder.url, {
        model: "m",
        stream: true,
        messages: [{ role: "user", content: "x" }],
      });
      expect(answer.status).toBe(200);
      expect(upstream.interactions[0]!.request.headers["x-api-key"]).toBe("sk-ant-api03-REALKEY");
      expect(recorder.interactions[0]!.response.body).toBe(upstream.interactions[0]!.response.body);
    } finally {
      await recorder.close();
      await upstream.close();
    }
    const written = readFileSync(file, "utf8");
    expect(written).not.toContain("REALKEY");
    expect(readRecording(file).metadata).toEqual({ case: "x", upstream: "loopback" });
  });

  it("streams each response through as it arrives, and records it whole", async () => {
    let clientGotFirst!: () => void;
    const firstArrived = new Promise<void>((resolve) => {
      clientGotFirst = resolve;
    });
    const upstream = await startModelServer({
      source: {
        name: "slow",
        async respond() {
          async function* chunks() {
            yield 'event: ping\ndata: {"type":"ping"}\n\n';
            // The second chunk waits until the client has seen the first: a buffering proxy would hang.
            await firstArrived;
            yield 'event: message_stop\ndata: {"type":"message_stop"}\n\n';
          }
          return { status: 200, headers: { "content-type": "text/event-stream" }, stream: chunks() };
        },
      },
    });
    const recorder = await startModelServer({ source: recording({ upstream: upstream.url }) });
    try {
      const response = await fetch(`${recorder.url}/v1/messages`, { method: "POST", body: "{}" });
      const reader = response.body!.getReader();
      const first = await Promise.race([
        reader.read(),
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error("the proxy held the stream back")), 5000),
        ),
      ]);
      expect(new TextDecoder().decode(first.value)).toContain("ping");
      clientGotFirst();
      let rest = "";
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
        rest += new TextDecoder().decode(chunk.value);
      expect(rest).toContain("message_stop");
      await recorder.close();
      expect(recorder.interactions[0]!.response.body).toBe(
        'event: ping\ndata: {"type":"ping"}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n',
      );
    } finally {
      await recorder.close();
      await upstream.close();
    }
  });

  it("refuses to forward to a remote API without a key", () => {
    vi.stubEnv("ANTHROPIC_API_KEY", "");
    try {
      expect(() => recording({ upstream: "https://models.example" })).toThrow(
        "forwarding to https://models.example needs an API key: set ANTHROPIC_API_KEY",
      );
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("answers 502 naming the upstream when it is down", async () => {
    const recorder = await startModelServer({ source: recording({ upstream: "http://127.0.0.1:9" }) });
    try {
      const answer = await exchange(recorder.url, { model: "m", messages: [] });
      expect(answer.status).toBe(502);
      expect(answer.text).toContain("the upstream http://127.0.0.1:9 did not answer");
    } finally {
      await recorder.close();
    }
  });
});
