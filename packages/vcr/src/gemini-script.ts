import {
  chunksToResponse,
  type GeminiErrorReply,
  type GeminiFunctionCall,
  type GeminiFunctionResponse,
  type GeminiMessageReply,
  type GeminiPart,
  type GeminiReply,
  type GeminiRequest,
  geminiErrorBody,
  replyChunks,
} from "./gemini-api.js";
import { describeThrown, estimateTokens, type ScriptContext } from "./scripted-source.js";
import {
  geminiCallOf,
  jsonResponse,
  type ModelSource,
  type SourceContext,
  type SourceResponse,
} from "./wire.js";

/**
 * A scripted Gemini model, and the builders and readers its script uses: the Gemini API twin of
 * `scripted(fn)` and its Messages helpers (`reply`, `toolUse`, `apiError`, `lastToolResult`, ...).
 */

/** What a Gemini script is told besides the request: the Messages script's context, plus the model asked. */
export interface GeminiScriptContext extends ScriptContext {
  /** The model of the path (`gemini-2.5-flash`). */
  model: string;
  /** `generateContent` or `streamGenerateContent`. */
  method: string;
}

export type GeminiScriptFunction = (
  request: GeminiRequest,
  context: GeminiScriptContext,
) => GeminiReply | Promise<GeminiReply>;

/** A text part. */
export function geminiText(value: string): GeminiPart {
  return { text: value };
}

/**
 * A function call part: `geminiFunctionCall("run_shell_command", { command: "ls" })`. Without an `id`, the
 * server gives it one unique within the server (`call_vcr_0001`, ...); the CLI keeps it.
 */
export function geminiFunctionCall(name: string, args: Record<string, unknown>, id?: string): GeminiPart {
  return { functionCall: { name, args, ...(id === undefined ? {} : { id }) } };
}

/** A model answer made of `parts` (strings are text parts). */
export function geminiReply(...parts: Array<GeminiPart | string>): GeminiMessageReply {
  return {
    kind: "gemini-message",
    parts: parts.map((part) => (typeof part === "string" ? geminiText(part) : part)),
  };
}

/** A Gemini API error: the CLI ends the run and exits with `status % 256`. */
export function geminiError(status: number, message: string, statusName?: string): GeminiErrorReply {
  return { kind: "gemini-error", status, message, ...(statusName ? { statusName } : {}) };
}

/** Every functionResponse part the request carries, in order. */
export function functionResponses(request: GeminiRequest): GeminiFunctionResponse[] {
  return (request.contents ?? [])
    .flatMap((content) => content.parts ?? [])
    .flatMap((part) => (part.functionResponse ? [part.functionResponse] : []));
}

/** How many function responses the conversation holds: the natural "step" counter of a script. */
export function countFunctionResponses(request: GeminiRequest): number {
  return functionResponses(request).length;
}

/** Every function call the model made in the conversation so far, in order. */
export function functionCalls(request: GeminiRequest): GeminiFunctionCall[] {
  return (request.contents ?? [])
    .filter((content) => content.role === "model")
    .flatMap((content) => content.parts ?? [])
    .flatMap((part) => (part.functionCall ? [part.functionCall] : []));
}

/**
 * The last function response with its text (`output`, else `error`) and, for a shell command, the
 * exit code the CLI reported to the model (`Exit Code: N`).
 */
export function lastFunctionResponse(
  request: GeminiRequest,
): (GeminiFunctionResponse & { text: string; exitCode?: number }) | undefined {
  const last = functionResponses(request).at(-1);
  if (!last) return undefined;
  const value = last.response?.output ?? last.response?.error ?? "";
  const text = typeof value === "string" ? value : JSON.stringify(value);
  const exit = /\nExit Code: (-?\d+)/.exec(text)?.[1];
  return { ...last, text, ...(exit !== undefined ? { exitCode: Number(exit) } : {}) };
}

/** The user's texts, without the `<session_context>` block the CLI puts first. */
function userTexts(content: GeminiContent): string[] {
  return (content.parts ?? [])
    .map((part) => part.text)
    .filter((text): text is string => typeof text === "string" && !text.startsWith("<session_context>"));
}
type GeminiContent = GeminiRequest["contents"][number];

/** The text of the first user content (without the CLI's `<session_context>`): the prompt. */
export function geminiPrompt(request: GeminiRequest): string {
  for (const content of request.contents ?? []) {
    if (content.role !== "user" && content.role !== undefined) continue;
    const texts = userTexts(content);
    if (texts.length > 0) return texts.join("\n");
  }
  return "";
}

/** Whether the request offers the model a function of that name. */
export function offersFunction(request: GeminiRequest, name: string): boolean {
  return (request.tools ?? []).some((tool) =>
    (tool.functionDeclarations ?? []).some((fn) => fn.name === name),
  );
}

/** Whether the request asks for JSON of a schema (the CLI's model router, its summaries). */
export function isJsonSchemaRequest(request: GeminiRequest): boolean {
  const config = request.generationConfig ?? {};
  return config.responseJsonSchema !== undefined || config.responseSchema !== undefined;
}

/**
 * A small value that fits a JSON schema: the first enum value, strings "scripted", numbers at their
 * minimum (or 1), every property of an object. Enough for the CLI's router (`complexity_score`).
 */
export function exampleFromSchema(schema: unknown): unknown {
  if (!schema || typeof schema !== "object") return {};
  const node = schema as Record<string, unknown>;
  if (Array.isArray(node.enum) && node.enum.length > 0) return node.enum[0];
  if ("const" in node) return node.const;
  const type = String(Array.isArray(node.type) ? node.type[0] : (node.type ?? "object")).toLowerCase();
  if (type === "string") return "scripted";
  if (type === "number" || type === "integer") return typeof node.minimum === "number" ? node.minimum : 1;
  if (type === "boolean") return false;
  if (type === "array") return [];
  const properties = (node.properties ?? {}) as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(properties).map(([name, value]) => [name, exampleFromSchema(value)]),
  );
}

function usageOf(reply: GeminiMessageReply, requestText: string) {
  return {
    promptTokenCount: reply.usage?.promptTokenCount ?? estimateTokens(requestText),
    candidatesTokenCount: reply.usage?.candidatesTokenCount ?? estimateTokens(JSON.stringify(reply.parts)),
    ...(reply.usage?.thoughtsTokenCount !== undefined
      ? { thoughtsTokenCount: reply.usage.thoughtsTokenCount }
      : {}),
    ...(reply.usage?.cachedContentTokenCount !== undefined
      ? { cachedContentTokenCount: reply.usage.cachedContentTokenCount }
      : {}),
  };
}

/** The HTTP response of a Gemini reply: SSE chunks for streamGenerateContent, JSON else; call ids filled in. */
export function geminiReplyToResponse(
  reply: GeminiReply,
  call: { model: string; method: string },
  requestText: string,
  context: Pick<SourceContext, "nextToolUseId">,
): SourceResponse {
  if (reply.kind === "gemini-error") {
    return jsonResponse(reply.status, geminiErrorBody(reply.status, reply.message, reply.statusName));
  }
  const parts = reply.parts.map((part) =>
    part.functionCall && !part.functionCall.id
      ? {
          ...part,
          functionCall: {
            ...part.functionCall,
            id: context.nextToolUseId().replace("toolu_vcr_", "call_vcr_"),
          },
        }
      : { ...part },
  );
  const chunks = replyChunks({ ...reply, parts }, call.model, usageOf(reply, requestText));
  return chunksToResponse(chunks, call.method === "streamGenerateContent");
}

/**
 * A Gemini model that is a function of the request, for `startModelServer({ source, modelApi:
 * "gemini" })`. `generateContent` and `streamGenerateContent` calls go to `fn`, except the requests
 * for JSON of a schema (the CLI's model router), answered with a value of the schema unless `fn`
 * handles them (`options.jsonSchema: "script"`); `countTokens` gets an estimate; anything else a 404.
 */
export function scriptedGemini(
  fn: GeminiScriptFunction,
  options: { jsonSchema?: "example" | "script" } = {},
): ModelSource {
  let calls = 0;
  return {
    name: "scripted",
    async respond(request, context): Promise<SourceResponse> {
      const requestText = request.raw_body ?? JSON.stringify(request.body ?? "");
      const call = geminiCallOf(request.path);
      if (!call || request.method !== "POST") {
        return jsonResponse(
          404,
          geminiErrorBody(404, `The scripted Gemini model does not serve ${request.method} ${request.path}`),
        );
      }
      if (call.method === "countTokens")
        return jsonResponse(200, { totalTokens: estimateTokens(requestText) });
      const body = request.body as unknown as GeminiRequest | undefined;
      if (!body || !Array.isArray(body.contents)) {
        return jsonResponse(
          400,
          geminiErrorBody(400, "contents: the request body is not a Gemini generateContent request"),
        );
      }
      if (isJsonSchemaRequest(body) && options.jsonSchema !== "script") {
        const schema = body.generationConfig?.responseJsonSchema ?? body.generationConfig?.responseSchema;
        const reply = geminiReply(JSON.stringify(exampleFromSchema(schema)));
        return geminiReplyToResponse(reply, call, requestText, context);
      }
      const number = calls++;
      let reply: GeminiReply;
      try {
        reply = await fn(body, {
          call: number,
          index: context.index,
          path: request.path,
          headers: request.headers,
          interactions: context.interactions,
          signal: context.signal ?? new AbortController().signal,
          model: call.model,
          method: call.method,
        });
      } catch (error) {
        const message = `the scripted Gemini model threw on call ${number}: ${describeThrown(error)}`;
        return { ...jsonResponse(500, geminiErrorBody(500, message)), error: message };
      }
      if (!reply || (reply.kind !== "gemini-message" && reply.kind !== "gemini-error")) {
        const message = `the scripted Gemini model returned ${JSON.stringify(reply)} on call ${number}; return geminiReply(...) or geminiError(...)`;
        return { ...jsonResponse(500, geminiErrorBody(500, message)), error: message };
      }
      return geminiReplyToResponse(reply, call, requestText, context);
    },
  };
}

/**
 * A Gemini model that never answers: waits until the server closes, then gives up with an HTTP 503
 * no one reads. For a run's timeout: `scriptedGemini((request, context) => geminiStall(context))`.
 */
export async function geminiStall(context: { signal: AbortSignal }): Promise<GeminiErrorReply> {
  if (!context.signal.aborted) {
    await new Promise<void>((resolve) =>
      context.signal.addEventListener("abort", () => resolve(), { once: true }),
    );
  }
  return geminiError(503, "the model stalled and the server closed before it answered");
}
