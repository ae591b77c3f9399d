import { afterEach, describe, expect, it } from "vitest";
import {
  apiError,
  countToolResults,
  firstUserText,
  isSubagentRequest,
  lastToolResult,
  type ModelServer,
  reply,
  scripted,
  stall,
  startModelServer,
  text,
  toolUse,
} from "../src/index.js";
import { parseSse } from "../src/sse.js";

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function post(path: string, body: unknown) {
  const response = await fetch(`${server!.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "sk-test-dummy" },
    body: JSON.stringify(body),
  });
  return { status: response.status, type: response.headers.get("content-type"), text: await response.text() };
}

const request = (messages: unknown[], stream = true) => ({
  model: "claude-test",
  max_tokens: 100,
  stream,
  system: [
    { type: "text", text: "x-anthropic-billing-header: cc_version=2.1.330.abc; cc_entrypoint=sdk-cli;" },
  ],
  messages,
});

describe("startModelServer with a scripted source", () => {
  it("streams a reply as Messages API server-sent events", async () => {
    server = await startModelServer({
      source: scripted(() => reply(text("Listing."), toolUse("Bash", { command: "ls" }))),
    });
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    const {
      status,
      type,
      text: body,
    } = await post("/v1/messages?beta=true", request([{ role: "user", content: "hi" }]));
    expect(status).toBe(200);
    expect(type).toContain("text/event-stream");
    const events = parseSse(body);
    expect(events.map((event) => event.event)).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    const data = events.map((event) => JSON.parse(event.data));
    expect(data[0].message).toMatchObject({ role: "assistant", model: "claude-test", content: [] });
    expect(data[0].message.usage.input_tokens).toBeGreaterThan(10);
    expect(data[3].delta).toEqual({ type: "text_delta", text: "Listing." });
    expect(data[5].content_block).toEqual({
      type: "tool_use",
      id: "toolu_vcr_0001",
      name: "Bash",
      input: {},
    });
    expect(JSON.parse(data[6].delta.partial_json)).toEqual({ command: "ls" });
    expect(data[8].delta.stop_reason).toBe("tool_use");
    expect(data[8].usage.output_tokens).toBeGreaterThan(1);
    expect(server.interactions).toHaveLength(1);
    expect(server.interactions[0]!.request.body!.messages).toEqual([{ role: "user", content: "hi" }]);
    expect(server.interactions[0]!.response.body).toBe(body);
  });

  it("answers non-streaming requests with the JSON message and gives unique tool ids", async () => {
    server = await startModelServer({ source: scripted(() => reply(toolUse("Read", { file_path: "/a" }))) });
    const first = JSON.parse(
      (await post("/v1/messages", request([{ role: "user", content: "x" }], false))).text,
    );
    const second = JSON.parse(
      (await post("/v1/messages", request([{ role: "user", content: "x" }], false))).text,
    );
    expect(first).toMatchObject({ type: "message", stop_reason: "tool_use", content: [{ name: "Read" }] });
    expect(first.content[0].id).not.toBe(second.content[0].id);
    expect(first.id).not.toBe(second.id);
    expect(first.usage.output_tokens).toBeGreaterThan(0);
  });

  it("gives the script the request, the call number and step helpers", async () => {
    const seen: Array<{ call: number; step: number; first: string; last?: string; subagent: boolean }> = [];
    server = await startModelServer({
      source: scripted((body, context) => {
        seen.push({
          call: context.call,
          step: countToolResults(body),
          first: firstUserText(body),
          last: lastToolResult(body)?.text,
          subagent: isSubagentRequest(body, context.headers),
        });
        return reply(text("ok"));
      }),
    });
    await post(
      "/v1/messages",
      request([
        {
          role: "user",
          content: [
            { type: "text", text: "<system-reminder>\nctx\n</system-reminder>" },
            { type: "text", text: "do it" },
          ],
        },
      ]),
    );
    await post(
      "/v1/messages",
      request([
        { role: "user", content: "do it" },
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Bash", input: {} }] },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: "out" }] }],
        },
      ]),
    );
    expect(seen).toEqual([
      { call: 0, step: 0, first: "do it", last: undefined, subagent: false },
      { call: 1, step: 1, first: "do it", last: "out", subagent: false },
    ]);
  });

  it("returns API errors, estimates count_tokens and rejects unknown endpoints", async () => {
    server = await startModelServer({ source: scripted(() => apiError(529, "busy")) });
    const error = await post("/v1/messages", request([{ role: "user", content: "x" }]));
    expect(error.status).toBe(529);
    expect(JSON.parse(error.text)).toEqual({
      type: "error",
      error: { type: "overloaded_error", message: "busy" },
    });
    const count = await post("/v1/messages/count_tokens", request([{ role: "user", content: "x" }]));
    expect(JSON.parse(count.text).input_tokens).toBeGreaterThan(0);
    const unknown = await post("/v1/other", {});
    expect(unknown.status).toBe(404);
    expect(unknown.text).toContain("/v1/other");
  });

  it("turns a script that throws into a 500 naming the failure, recorded on the interaction", async () => {
    server = await startModelServer({
      source: scripted(() => {
        throw new Error("no step 7");
      }),
    });
    const answer = await post("/v1/messages", request([{ role: "user", content: "x" }]));
    expect(answer.status).toBe(500);
    expect(answer.text).toContain("no step 7");
    expect(server.interactions[0]!.error).toContain("no step 7");
  });

  it("lets a stalled script hang until the server closes, then closes without waiting forever", async () => {
    let asked = false;
    server = await startModelServer({
      source: scripted((_request, context) => {
        asked = true;
        return stall(context);
      }),
    });
    const pending = post("/v1/messages", request([{ role: "user", content: "hi" }])).catch(
      (error: Error) => error,
    );
    while (!asked) await new Promise((resolve) => setTimeout(resolve, 10));
    const closing = server;
    server = undefined;
    await closing.close();
    // The client's connection was dropped; the stalled call was recorded as the error it gave up with.
    expect(await pending).toBeInstanceOf(Error);
    expect(closing.interactions[0]?.response.status).toBe(503);
  });

  it("refuses to listen anywhere but loopback", async () => {
    await expect(
      startModelServer({ source: scripted(() => reply("x")), host: "0.0.0.0" as "127.0.0.1" }),
    ).rejects.toThrow(/127\.0\.0\.1/);
  });
});

describe("startModelServer's api", () => {
  it("serves Anthropic's Messages API, and refuses another runner's wire format by name", async () => {
    const server = await startModelServer({
      source: scripted(() => reply(text("hi"))),
      api: "anthropic-messages",
    });
    await server.close();
    await expect(
      startModelServer({ source: scripted(() => reply(text("hi"))), api: "gemini" }),
    ).rejects.toThrow(
      "startModelServer: the gemini API is not served yet (only anthropic-messages): a runner whose modelApi is gemini cannot have its model scripted, recorded or replayed",
    );
  });
});
