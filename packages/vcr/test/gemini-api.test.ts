import { describe, expect, it } from "vitest";
import {
  geminiAnswerParts,
  geminiError,
  geminiFunctionCall,
  geminiReply,
  lastFunctionResponse,
  parseRecording,
  recording,
  replaying,
  scriptedGemini,
  startModelServer,
} from "../src/index.js";

const request = (prompt: string, extra: Record<string, unknown> = {}) => ({
  contents: [
    {
      role: "user",
      parts: [{ text: "<session_context>\nToday's date is Monday.\n</session_context>" }, { text: prompt }],
    },
  ],
  ...extra,
});

async function post(url: string, path: string, body: unknown) {
  const response = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-goog-api-key": "dummy-gemini-key" },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    type: response.headers.get("content-type") ?? "",
    body: await response.text(),
  };
}

const STREAM = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse";

describe("the Gemini API of @evals/vcr's model server", () => {
  it("streams a scripted answer as SSE data lines the gemini CLI reads, with ids on function calls", async () => {
    const server = await startModelServer({
      source: scriptedGemini(() =>
        geminiReply("Reading.", geminiFunctionCall("read_file", { file_path: "a.txt" })),
      ),
      modelApi: "gemini",
    });
    try {
      expect(server.env()).toEqual({
        GOOGLE_GEMINI_BASE_URL: server.url,
        GEMINI_API_KEY: "dummy-gemini-key",
      });
      const answer = await post(server.url, STREAM, request("hi"));
      expect(answer.type).toContain("text/event-stream");
      expect(answer.body).toMatch(/^data: \{/);
      expect(answer.body).not.toContain("event:");
      const parts = geminiAnswerParts(answer);
      expect(parts).toEqual([
        { text: "Reading." },
        { functionCall: { name: "read_file", args: { file_path: "a.txt" }, id: "call_vcr_0001" } },
      ]);
      const last = JSON.parse(answer.body.trim().split("\n\n").pop()!.slice("data: ".length));
      expect(last.candidates[0].finishReason).toBe("STOP");
      expect(last.usageMetadata.promptTokenCount).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });

  it("answers the CLI's router (a JSON-schema request) with a value of the schema, errors in Google's shape", async () => {
    const server = await startModelServer({
      source: scriptedGemini(() => geminiError(429, "slow down")),
      modelApi: "gemini",
    });
    try {
      const schema = { type: "object", properties: { complexity_score: { type: "integer", minimum: 1 } } };
      const routed = await post(
        server.url,
        "/v1beta/models/gemini-3.5-flash-lite:generateContent",
        request("route", { generationConfig: { responseJsonSchema: schema } }),
      );
      expect(JSON.parse(geminiAnswerParts(routed)![0]!.text!)).toEqual({ complexity_score: 1 });
      const failed = await post(server.url, STREAM, request("hi"));
      expect(failed.status).toBe(429);
      expect(JSON.parse(failed.body)).toEqual({
        error: { code: 429, message: "slow down", status: "RESOURCE_EXHAUSTED" },
      });
      const unknown = await post(server.url, "/v1/messages", { messages: [] });
      expect(unknown.status).toBe(404);
    } finally {
      await server.close();
    }
  });

  it("reads a shell command's exit code from the last function response", () => {
    const last = lastFunctionResponse({
      contents: [
        {
          role: "user",
          parts: [
            {
              functionResponse: {
                name: "run_shell_command",
                response: { output: "Output: x\nExit Code: 2\n" },
              },
            },
          ],
        },
      ],
    });
    expect(last).toMatchObject({ name: "run_shell_command", exitCode: 2 });
  });

  it("records through a recording source and replays the same bytes, matching across working directories and call ids", async () => {
    const upstream = await startModelServer({
      source: scriptedGemini(() => geminiReply("done")),
      modelApi: "gemini",
    });
    const source = recording({ upstream: upstream.url, modelApi: "gemini" });
    const server = await startModelServer({ source, modelApi: "gemini" });
    // Two runs of one scenario in other folders: the CLI's time-based call ids differ too.
    const sent = (cwd: string, callId: string) => ({
      contents: [
        {
          role: "user",
          parts: [
            { text: `<session_context>\n- **Workspace Directories:**\n  - ${cwd}\n</session_context>` },
            { text: "fix it" },
          ],
        },
        {
          role: "model",
          parts: [{ functionCall: { id: callId, name: "read_file", args: { file_path: `${cwd}/a` } } }],
        },
      ],
    });
    let recorded: string;
    try {
      recorded = (await post(server.url, STREAM, sent("/tmp/one", "read_file_1795644645389_0"))).body;
    } finally {
      await server.close();
      await upstream.close();
    }
    const stored = parseRecording(JSON.parse(JSON.stringify(source.recording(server.interactions))));
    expect(stored.interactions[0]?.response.body.kind).toBe("sse");
    const replay = startModelServer({ source: replaying(stored), modelApi: "gemini" });
    const again = await replay;
    try {
      expect((await post(again.url, STREAM, sent("/tmp/two", "read_file_1795644999999_0"))).body).toBe(
        recorded,
      );
    } finally {
      await again.close();
    }
  });
});
