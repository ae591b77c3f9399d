import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { isLoopbackUrl } from "@evals/vcr";
import type { CodexModelCall, CodexModelItem } from "./codex-run.js";

/**
 * A loopback hop between Codex and the model server the run was given. It sees every model
 * request, which the --json stream does not show: it counts them (Codex has no turn limit, so the
 * runner refuses the request past `maxTurns`, which ends the run at once: Codex does not retry a
 * 400), and keeps the last one, whose `input` holds the whole conversation: every call the model
 * made and the output the CLI sent back (a rejected patch, a hook-denied command included).
 */
export interface ModelTap {
  /** The base url for Codex's config (`<url>/v1`). */
  url: string;
  /** How many model requests were forwarded. */
  requests(): number;
  /** Whether the tap refused a request because of the turn limit. */
  limited(): boolean;
  /** The status of the last model response, when it was not 200. */
  lastErrorStatus(): number | undefined;
  /** The model's texts and tool calls with their outputs, in order. */
  modelItems(): CodexModelItem[];
  /** The Codex version its requests named (`user-agent: codex_exec/0.169.0 ...`). */
  cliVersion(): string | undefined;
  close(): Promise<void>;
}

/** The message of the refusal past the turn limit (Codex shows it in its turn.failed). */
export const TURN_LIMIT_MESSAGE = "evals: the run reached its maximum number of turns";

const HOP_HEADERS = new Set(["host", "connection", "content-length", "keep-alive", "transfer-encoding"]);

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks)));
    request.on("error", reject);
  });
}

export async function startModelTap(upstream: string, maxTurns: number | undefined): Promise<ModelTap> {
  if (!isLoopbackUrl(upstream)) {
    throw new Error(
      `@evals/codex runs Codex only against a loopback model server (an @evals/vcr server), got baseUrl ${upstream}; to record against the real API, start a recording server in front of it`,
    );
  }
  const base = upstream.replace(/\/+$/, "");
  let count = 0;
  let limited = false;
  let lastStatus: number | undefined;
  let lastInput: unknown[] = [];
  let lastOutput: unknown[] = [];
  let cliVersion: string | undefined;

  const server = createServer(async (request, response) => {
    try {
      const body = await readBody(request);
      const isModelCall =
        request.method === "POST" && /\/responses$/.test((request.url ?? "").split("?")[0]!);
      if (isModelCall) {
        cliVersion ??= /^codex_\w+\/(\S+)/.exec(String(request.headers["user-agent"] ?? ""))?.[1];
        try {
          const input = (JSON.parse(body.toString("utf8")) as { input?: unknown }).input;
          if (Array.isArray(input)) {
            lastInput = input;
            lastOutput = [];
          }
        } catch {
          // Not JSON: the model server will say so.
        }
        if (maxTurns !== undefined && count >= maxTurns) {
          limited = true;
          response.writeHead(400, { "content-type": "application/json" });
          response.end(
            JSON.stringify({ error: { message: TURN_LIMIT_MESSAGE, type: "invalid_request_error" } }),
          );
          return;
        }
        count++;
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        if (value !== undefined && !HOP_HEADERS.has(name))
          headers[name] = Array.isArray(value) ? value.join(", ") : value;
      }
      const forwarded = await fetch(`${base}${request.url ?? "/"}`, {
        method: request.method ?? "GET",
        headers,
        ...(request.method !== "GET" && request.method !== "HEAD" ? { body } : {}),
      });
      const responseHeaders: Record<string, string> = {};
      forwarded.headers.forEach((value, name) => {
        if (!HOP_HEADERS.has(name) && name !== "content-encoding") responseHeaders[name] = value;
      });
      response.writeHead(forwarded.status, responseHeaders);
      if (isModelCall) lastStatus = forwarded.status === 200 ? undefined : forwarded.status;
      let text = "";
      if (forwarded.body) {
        const decoder = new TextDecoder();
        for await (const chunk of forwarded.body) {
          response.write(chunk);
          if (isModelCall) text += decoder.decode(chunk, { stream: true });
        }
      }
      response.end();
      if (isModelCall && forwarded.status === 200) lastOutput = outputItems(text);
    } catch (error) {
      if (!response.headersSent) response.writeHead(502, { "content-type": "application/json" });
      // Codex shows this message with its own request's URL (the tap's): name the model server.
      const cause = (error as { cause?: { code?: unknown } }).cause?.code;
      const why = typeof cause === "string" ? cause : (error as Error).message;
      response.end(
        JSON.stringify({ error: { message: `the model server ${base} cannot be reached (${why})` } }),
      );
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => count,
    limited: () => limited,
    lastErrorStatus: () => lastStatus,
    modelItems: () => modelItemsOf([...lastInput, ...lastOutput]),
    cliVersion: () => cliVersion,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The output items of a streamed response (its response.output_item.done events). */
function outputItems(sse: string): unknown[] {
  const items: unknown[] = [];
  for (const line of sse.split("\n")) {
    if (!line.startsWith("data:")) continue;
    try {
      const data = JSON.parse(line.slice(5)) as { type?: string; item?: unknown };
      if (data.type === "response.output_item.done" && data.item) items.push(data.item);
    } catch {
      // Not JSON.
    }
  }
  return items;
}

type Item = {
  type?: string;
  role?: string;
  call_id?: string;
  name?: string;
  arguments?: string;
  input?: string;
  output?: unknown;
  content?: unknown;
};

/** The assistant's texts and tool calls (with their outputs) of a conversation, in order. */
export function modelItemsOf(conversation: unknown[]): CodexModelItem[] {
  const items: CodexModelItem[] = [];
  const calls = new Map<string, CodexModelCall>();
  for (const raw of conversation as Item[]) {
    if (!raw || typeof raw !== "object") continue;
    if (raw.type === "message" && raw.role === "assistant" && Array.isArray(raw.content)) {
      const text = (raw.content as Array<{ text?: string }>).map((part) => part.text ?? "").join("");
      items.push({ kind: "text", text });
    } else if ((raw.type === "function_call" || raw.type === "custom_tool_call") && raw.call_id && raw.name) {
      let args: Record<string, unknown> = {};
      if (raw.type === "function_call") {
        try {
          args = JSON.parse(raw.arguments ?? "{}") as Record<string, unknown>;
        } catch {
          args = { arguments: raw.arguments };
        }
      }
      const call: CodexModelCall = {
        call_id: raw.call_id,
        name: raw.name,
        arguments: raw.type === "custom_tool_call" ? { input: raw.input ?? "" } : args,
        ...(raw.type === "custom_tool_call" ? { input: raw.input ?? "" } : {}),
      };
      calls.set(raw.call_id, call);
      items.push({ kind: "call", call });
    } else if (
      (raw.type === "function_call_output" || raw.type === "custom_tool_call_output") &&
      raw.call_id
    ) {
      const call = calls.get(raw.call_id);
      if (call) call.output = typeof raw.output === "string" ? raw.output : JSON.stringify(raw.output);
    }
  }
  return items;
}
