import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ModelApi } from "@evals/core";
import { errorBody } from "./messages-api.js";
import {
  type Interaction,
  jsonResponse,
  type ModelSource,
  type SourceContext,
  type SourceResponse,
  type WireRequest,
} from "./wire.js";

export interface ModelServerOptions {
  /** What answers the requests: `scripted(fn)`, `replaying(recording)` or `recording(upstream)`. */
  source: ModelSource;
  /** Only loopback is allowed: the server is for the CLI running on this machine. */
  host?: "127.0.0.1";
  /** 0 (the default) picks a free port. */
  port?: number;
  /**
   * The wire format the CLI talks (an agent runner's `modelApi`): "anthropic-messages" (the default) is
   * served; another is refused with a clear error until this package serves it.
   */
  api?: ModelApi;
}

/** A loopback Anthropic Messages API, for `ANTHROPIC_BASE_URL`. */
export interface ModelServer {
  /** `http://127.0.0.1:PORT`, the value for ANTHROPIC_BASE_URL. */
  url: string;
  port: number;
  source: ModelSource;
  /** Every request/response pair, in the order the requests arrived. */
  interactions: Interaction[];
  /** The env a CLI needs to talk to this server (ANTHROPIC_BASE_URL and a dummy ANTHROPIC_API_KEY). */
  env(): Record<string, string>;
  /** Stops accepting requests, drops open connections, and lets the source finish (write its file). */
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 64 * 1024 * 1024;

function headersOf(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error(`request body larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function toWireRequest(request: IncomingMessage, text: string): WireRequest {
  const wire: WireRequest = {
    method: request.method ?? "GET",
    path: request.url ?? "/",
    headers: headersOf(request),
  };
  if (text.length === 0) return wire;
  try {
    wire.body = JSON.parse(text);
  } catch {
    wire.raw_body = text;
  }
  return wire;
}

function pad(value: number): string {
  return String(value).padStart(4, "0");
}

/**
 * Starts an Anthropic Messages API on 127.0.0.1 that answers from `source`. Point the claude CLI at
 * it with `ANTHROPIC_BASE_URL=server.url` (see `server.env()`), and close it when the run is over.
 */
export async function startModelServer(options: ModelServerOptions): Promise<ModelServer> {
  const host = options.host ?? "127.0.0.1";
  if (host !== "127.0.0.1") throw new Error(`startModelServer: host must be 127.0.0.1, got ${String(host)}`);
  const api = options.api ?? "anthropic-messages";
  if (api !== "anthropic-messages") {
    throw new Error(
      `startModelServer: the ${api} API is not served yet (only anthropic-messages): a runner whose modelApi is ${api} cannot have its model scripted, recorded or replayed`,
    );
  }
  const { source } = options;
  const interactions: Interaction[] = [];
  let toolUseCounter = 0;
  let messageCounter = 0;
  // Requests are answered one after another, so interaction indexes follow arrival order and a
  // script sees every earlier interaction.
  let queue: Promise<unknown> = Promise.resolve();
  const closed = new AbortController();

  /** Asks the source, sends its answer (streamed through when it streams), and keeps the pair. */
  const answer = async (wire: WireRequest, out: ServerResponse): Promise<void> => {
    const index = interactions.length;
    const context: SourceContext = {
      index,
      interactions,
      nextToolUseId: () => `toolu_vcr_${pad(++toolUseCounter)}`,
      nextMessageId: () => `msg_vcr_${pad(++messageCounter)}`,
      signal: closed.signal,
    };
    const started = performance.now();
    let response: SourceResponse;
    try {
      response = await source.respond(wire, context);
    } catch (error) {
      const message = `the ${source.name} model source failed: ${error instanceof Error ? error.message : String(error)}`;
      response = { ...jsonResponse(500, errorBody(500, message)), error: message };
    }
    let body: string;
    let error = response.error;
    if ("stream" in response) {
      out.writeHead(response.status, response.headers);
      const decoder = new TextDecoder();
      body = "";
      try {
        for await (const chunk of response.stream) {
          body += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
          out.write(chunk);
        }
        body += decoder.decode();
        out.end();
      } catch (failure) {
        error = `the ${source.name} model source failed while streaming: ${(failure as Error).message}`;
        out.destroy();
      }
    } else {
      body = response.body;
      out.writeHead(response.status, {
        ...response.headers,
        "content-length": String(Buffer.byteLength(body)),
      });
      out.end(wire.method === "HEAD" ? undefined : body);
    }
    interactions.push({
      index,
      request: wire,
      response: { status: response.status, headers: response.headers, body },
      source: source.name,
      duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
      ...(error ? { error } : {}),
    });
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    let text: string;
    try {
      text = await readBody(request);
    } catch (error) {
      const body = JSON.stringify(errorBody(413, error instanceof Error ? error.message : String(error)));
      response.writeHead(413, { "content-type": "application/json" }).end(body);
      return;
    }
    const wire = toWireRequest(request, text);
    const turn = queue.then(() => answer(wire, response));
    queue = turn.catch(() => undefined);
    await turn;
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error) => {
      if (!response.headersSent) {
        response.writeHead(500, { "content-type": "application/json" });
      }
      response.end(JSON.stringify(errorBody(500, error instanceof Error ? error.message : String(error))));
    });
  });
  server.keepAliveTimeout = 5_000;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host}:${port}`;
  let closing: Promise<void> | undefined;

  return {
    url,
    port,
    source,
    interactions,
    env: () => ({ ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: "sk-test-dummy" }),
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
          // A source still waiting to answer (a stalled script) is told to stop.
          closed.abort();
        });
        await queue;
        await source.close?.(interactions);
      })();
      return closing;
    },
  };
}
