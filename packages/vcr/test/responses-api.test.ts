import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  addFile,
  applyPatch,
  execCommand,
  type ModelServer,
  normalizeRequest,
  RecordingIntegrityError,
  readRecording,
  recording,
  replaying,
  response,
  responsesError,
  scriptedResponses,
  startModelServer,
  toolOutputs,
  updateFile,
} from "../src/index.js";

// The Responses API path of the loopback server, driven over HTTP as the Codex CLI drives it (the
// real CLI runs against it in @evals/codex's tests).
const servers: ModelServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function serve(source: Parameters<typeof startModelServer>[0]["source"]): Promise<ModelServer> {
  const server = await startModelServer({ source });
  servers.push(server);
  return server;
}

/** A Codex-like request: its environment context, the prompt, and the conversation so far. */
function body(cwd: string, prompt: string, conversation: unknown[] = []) {
  return {
    model: "gpt-5.5",
    stream: true,
    prompt_cache_key: `thread-${Math.random()}`,
    client_metadata: { session_id: String(Math.random()) },
    input: [
      {
        type: "message",
        id: `msg_${Math.random()}`,
        role: "user",
        content: [
          {
            type: "input_text",
            text: `<environment_context>\n  <cwd>${cwd}</cwd>\n  <current_date>2026-11-25</current_date>\n</environment_context>`,
          },
        ],
      },
      { type: "message", role: "user", content: [{ type: "input_text", text: prompt }] },
      ...conversation,
    ],
    tools: [{ type: "function", name: "exec_command" }],
  };
}

async function post(url: string, payload: unknown) {
  const answer = await fetch(`${url}/v1/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer sk-secret-key-123" },
    body: JSON.stringify(payload),
  });
  return { status: answer.status, text: await answer.text() };
}

function items(sse: string): Array<Record<string, unknown>> {
  return sse
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice(6)))
    .filter((data) => data.type === "response.output_item.done")
    .map((data) => data.item);
}

describe("the Responses API", () => {
  it("streams scripted answers as SSE items, with call ids, and errors as OpenAI error bodies", async () => {
    const server = await serve(
      scriptedResponses((request, context) => {
        if (context.call === 0)
          return response("Looking.", execCommand("ls"), applyPatch(addFile("a.md", "x")));
        if (context.call === 1)
          return response(
            `outputs: ${toolOutputs(request)
              .map((o) => o.name)
              .join(",")}`,
          );
        return responsesError(500, "down");
      }),
    );
    const first = await post(server.url, body("/w", "go"));
    expect(first.status).toBe(200);
    expect(first.text).toMatch(/^event: response.created\ndata: /);
    expect(first.text).toContain("event: response.completed");
    const [message, call, patch] = items(first.text);
    expect(message).toMatchObject({ type: "message", content: [{ type: "output_text", text: "Looking." }] });
    expect(call).toMatchObject({ type: "function_call", name: "exec_command", arguments: '{"cmd":"ls"}' });
    expect(call!.call_id).toMatch(/^call_vcr_/);
    expect(patch).toMatchObject({ type: "custom_tool_call", name: "apply_patch" });
    expect(patch!.input).toBe("*** Begin Patch\n*** Add File: a.md\n+x\n*** End Patch");
    const second = await post(
      server.url,
      body("/w", "go", [
        { ...call, id: "x" },
        { type: "function_call_output", call_id: call!.call_id, output: "a.md" },
      ]),
    );
    expect(items(second.text)[0]).toMatchObject({ content: [{ text: "outputs: exec_command" }] });
    const third = await post(server.url, body("/w", "go"));
    expect(third.status).toBe(500);
    expect(JSON.parse(third.text)).toEqual({
      error: { message: "down", type: "server_error", param: null, code: "server_error" },
    });
  });

  it("masks what differs between two Codex runs when matching", () => {
    const a = normalizeRequest({
      method: "POST",
      path: "/v1/responses",
      headers: {},
      body: body("/tmp/one", "go") as never,
    });
    const b = normalizeRequest({
      method: "POST",
      path: "/v1/responses",
      headers: {},
      body: body("/tmp/two", "go") as never,
    });
    expect(a).toEqual(b);
    expect(JSON.stringify(a.body)).toContain("<cwd><cwd></cwd>");
    const c = normalizeRequest({
      method: "POST",
      path: "/v1/responses",
      headers: {},
      body: body("/tmp/two", "stop") as never,
    });
    expect(c).not.toEqual(a);
  });

  it("records (key redacted), replays in another folder, reports a divergence, refuses an edited answer", async () => {
    const dir = mkdtempSync(join(tmpdir(), "vcr-responses-"));
    dirs.push(dir);
    const file = join(dir, "run.recording.json");
    const upstream = await serve(
      scriptedResponses((_request, context) =>
        context.call === 0 ? response(applyPatch(updateFile("a.md", "x", "y"))) : response("done"),
      ),
    );
    const recorder = await startModelServer({
      source: recording({ upstream: upstream.url, file, modelApi: "openai-responses" }),
    });
    const first = await post(recorder.url, body("/tmp/rec", "go"));
    const patch = items(first.text)[0]!;
    await post(
      recorder.url,
      body("/tmp/rec", "go", [
        patch,
        { type: "custom_tool_call_output", call_id: patch.call_id, output: "ok" },
      ]),
    );
    await recorder.close();
    expect(readFileSync(file, "utf8")).not.toContain("sk-secret-key-123");
    expect(readRecording(file).interactions).toHaveLength(2);

    const source = replaying(file);
    const replay = await serve(source);
    const again = await post(replay.url, body("/tmp/elsewhere", "go"));
    expect(items(again.text)[0]).toMatchObject({ call_id: patch.call_id, input: patch.input });
    const diverged = await post(replay.url, body("/tmp/elsewhere", "something else"));
    expect(diverged.status).toBe(409);
    expect(JSON.parse(diverged.text).error.message).toMatch(/replay diverged at request 2/);
    expect(source.divergences).toHaveLength(1);
    expect(source.unplayed()).toHaveLength(1);

    writeFileSync(file, readFileSync(file, "utf8").replace("+y", "+PWNED"));
    expect(() => replaying(file)).toThrow(RecordingIntegrityError);
  });
});
