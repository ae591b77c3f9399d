import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/**
 * A fake Gemini API on 127.0.0.1 that the real Gemini CLI can talk to (through
 * GOOGLE_GEMINI_BASE_URL): `streamGenerateContent` answered as Server-Sent Events,
 * `generateContent` answered with JSON (valid JSON for a `responseJsonSchema` request, such as
 * the CLI's model router), `countTokens`, and errors or silence on demand.
 */

/** One request the fake received. */
export interface FakeGeminiRequest {
  /** `streamGenerateContent`, `generateContent`, `countTokens`, ... */
  method: string;
  model: string;
  /** The text of the last user message (what the prompt, with any piped context, became). */
  prompt: string;
  /** Every text part of every message, in order (the history a resumed session re-sends). */
  texts: string[];
  /** True when the request asked for JSON matching a schema (the router, summaries). */
  jsonSchema: boolean;
  apiKey: string | null;
  body: Record<string, unknown>;
  /** Set when the client went away before the answer was complete (e.g. it was killed). */
  aborted: boolean;
  receivedAt: number;
}

/** What the fake does with a request that a rule matches. */
export interface FakeGeminiRule {
  /** Matches when the request's last user message contains this text or matches this pattern. */
  match?: string | RegExp | ((request: FakeGeminiRequest) => boolean);
  /** Which API methods the rule applies to (default: `streamGenerateContent` and `generateContent` without a schema). */
  methods?: string[];
  /** Answer with this text (or the text this function returns). */
  text?: string | ((request: FakeGeminiRequest) => string);
  /** Answer with an HTTP error of this status (429 rate limit, 401/403 auth, 500 ...). */
  status?: number;
  /** The error's message (default: one that names the status). */
  message?: string;
  /** Never answer: hold the connection open until the client goes away (timeout tests). */
  hang?: boolean;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Apply to this many matching requests, then stop matching (default: every one). */
  times?: number;
}

export interface FakeGeminiOptions {
  /** Rules, tried in order; the first that matches decides. */
  rules?: FakeGeminiRule[];
  /** The answer when no rule matches (default: `Fake Gemini answer to: <prompt>`). */
  defaultText?: (request: FakeGeminiRequest) => string;
  /** How many pieces a streamed answer is split into (default 2). */
  chunks?: number;
}

export interface FakeGemini {
  /** `http://127.0.0.1:<port>`: the value for GOOGLE_GEMINI_BASE_URL. */
  url: string;
  port: number;
  /** Every request so far, oldest first. */
  requests: FakeGeminiRequest[];
  /** Requests whose last user message contains this text (router calls excluded). */
  requestsFor(text: string): FakeGeminiRequest[];
  /** Adds a rule in front of the others. */
  addRule(rule: FakeGeminiRule): void;
  /** Stops the server and drops held connections. */
  close(): Promise<void>;
}

const STATUS_NAMES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
};

const DEFAULT_METHODS = ["streamGenerateContent", "generateContent"];

export function defaultFakeAnswer(request: FakeGeminiRequest): string {
  return `Fake Gemini answer to: ${request.prompt.trim().slice(0, 200)}`;
}

/** Starts the fake on 127.0.0.1 (a free port unless `port` is given). */
export async function startFakeGemini(options: FakeGeminiOptions = {}): Promise<FakeGemini> {
  const rules: Array<FakeGeminiRule & { used: number }> = (options.rules ?? []).map((rule) => ({
    ...rule,
    used: 0,
  }));
  const requests: FakeGeminiRequest[] = [];
  const sockets = new Set<Socket>();
  const defaultText = options.defaultText ?? defaultFakeAnswer;
  const chunks = Math.max(1, options.chunks ?? 2);

  const server = createServer((req, res) => {
    readBody(req)
      .then((raw) => handle(req, res, raw))
      .catch((error: Error) => sendError(res, 500, `fake Gemini failed: ${error.message}`));
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse, raw: string): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const route = /\/models\/([^/:]+):([A-Za-z]+)$/.exec(url.pathname);
    if (req.method !== "POST" || !route) {
      sendError(res, 404, `fake Gemini does not serve ${req.method} ${url.pathname}`);
      return;
    }
    let body: Record<string, unknown> = {};
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    } catch {
      sendError(res, 400, "request body is not JSON");
      return;
    }
    const request = describeRequest(route[2]!, decodeURIComponent(route[1]!), body, req);
    requests.push(request);
    res.on("close", () => {
      if (!res.writableFinished) request.aborted = true;
    });

    if (request.method === "countTokens") {
      sendJson(res, { totalTokens: Math.ceil(request.texts.join(" ").length / 4) });
      return;
    }
    const rule = findRule(request);
    if (rule?.delayMs) await new Promise((done) => setTimeout(done, rule.delayMs));
    if (rule?.hang) return; // Hold the connection: the client's timeout must deal with it.
    if (rule?.status) {
      sendError(res, rule.status, rule.message ?? `fake Gemini error ${rule.status}`);
      return;
    }
    if (request.jsonSchema && !rule?.text) {
      sendJson(res, candidateResponse(JSON.stringify(exampleFromSchema(schemaOf(body))), request.model));
      return;
    }
    const text = typeof rule?.text === "function" ? rule.text(request) : (rule?.text ?? defaultText(request));
    if (request.method === "streamGenerateContent") streamAnswer(res, text, request.model, chunks);
    else sendJson(res, candidateResponse(text, request.model));
  }

  function findRule(request: FakeGeminiRequest) {
    for (const rule of rules) {
      const methods = rule.methods ?? DEFAULT_METHODS;
      if (!methods.includes(request.method)) continue;
      if (!rule.methods && request.jsonSchema) continue; // The router is not what a rule targets by default.
      if (rule.times !== undefined && rule.used >= rule.times) continue;
      if (!matches(rule.match, request)) continue;
      rule.used += 1;
      return rule;
    }
    return undefined;
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    requestsFor: (text) => requests.filter((request) => !request.jsonSchema && request.prompt.includes(text)),
    addRule: (rule) => {
      rules.unshift({ ...rule, used: 0 });
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function matches(match: FakeGeminiRule["match"], request: FakeGeminiRequest): boolean {
  if (match === undefined) return true;
  if (typeof match === "string") return request.prompt.includes(match);
  if (match instanceof RegExp) return match.test(request.prompt);
  return match(request);
}

function describeRequest(
  method: string,
  model: string,
  body: Record<string, unknown>,
  req: IncomingMessage,
): FakeGeminiRequest {
  const contents = Array.isArray(body.contents) ? (body.contents as Array<Record<string, unknown>>) : [];
  const textsOf = (content: Record<string, unknown>) =>
    (Array.isArray(content.parts) ? (content.parts as Array<Record<string, unknown>>) : [])
      .map((part) => (typeof part.text === "string" ? part.text : ""))
      .filter(Boolean);
  const lastUser = [...contents]
    .reverse()
    .find((content) => content.role === "user" || content.role === undefined);
  const userTexts = lastUser ? textsOf(lastUser).filter((text) => !text.startsWith("<session_context>")) : [];
  const config = (body.generationConfig ?? {}) as Record<string, unknown>;
  const apiKey = req.headers["x-goog-api-key"];
  return {
    method,
    model,
    prompt: userTexts.join("\n"),
    texts: contents.flatMap(textsOf),
    jsonSchema: Boolean(config.responseJsonSchema ?? config.responseSchema),
    apiKey: typeof apiKey === "string" ? apiKey : null,
    body,
    aborted: false,
    receivedAt: Date.now(),
  };
}

function schemaOf(body: Record<string, unknown>): unknown {
  const config = (body.generationConfig ?? {}) as Record<string, unknown>;
  return config.responseJsonSchema ?? config.responseSchema ?? {};
}

/**
 * A small value that fits a JSON schema: the first enum value, strings "fake", numbers at their
 * minimum (or 1), every property of an object. Enough for the CLI's router and summariser.
 */
export function exampleFromSchema(schema: unknown): unknown {
  if (!schema || typeof schema !== "object") return {};
  const node = schema as Record<string, unknown>;
  if (Array.isArray(node.enum) && node.enum.length) return node.enum[0];
  if ("const" in node) return node.const;
  const type = String(Array.isArray(node.type) ? node.type[0] : (node.type ?? "object")).toLowerCase();
  switch (type) {
    case "string":
      return "fake";
    case "number":
    case "integer":
      return typeof node.minimum === "number" ? node.minimum : 1;
    case "boolean":
      return false;
    case "array":
      return [];
    default: {
      const properties = (node.properties ?? {}) as Record<string, unknown>;
      return Object.fromEntries(
        Object.entries(properties).map(([name, value]) => [name, exampleFromSchema(value)]),
      );
    }
  }
}

function candidateResponse(text: string, model: string, finished = true) {
  const tokens = Math.max(1, Math.ceil(text.length / 4));
  return {
    candidates: [
      {
        content: { role: "model", parts: [{ text }] },
        ...(finished ? { finishReason: "STOP", index: 0 } : {}),
      },
    ],
    ...(finished
      ? {
          usageMetadata: { promptTokenCount: 10, candidatesTokenCount: tokens, totalTokenCount: 10 + tokens },
        }
      : {}),
    modelVersion: model,
  };
}

function streamAnswer(res: ServerResponse, text: string, model: string, chunks: number): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const size = Math.ceil(text.length / chunks) || 1;
  const pieces: string[] = [];
  for (let at = 0; at < text.length; at += size) pieces.push(text.slice(at, at + size));
  if (pieces.length === 0) pieces.push("");
  pieces.forEach((piece, index) => {
    const last = index === pieces.length - 1;
    res.write(`data: ${JSON.stringify(candidateResponse(piece, model, last))}\r\n\r\n`);
  });
  res.end();
}

function sendJson(res: ServerResponse, body: unknown, status = 200): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function sendError(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  sendJson(res, { error: { code: status, message, status: STATUS_NAMES[status] ?? "UNKNOWN" } }, status);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      raw += chunk;
    });
    req.on("end", () => resolve(raw));
    req.on("error", reject);
  });
}
