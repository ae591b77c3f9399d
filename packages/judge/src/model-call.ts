import type { z } from "zod";
import { JudgeError } from "./errors.js";

/**
 * One call of the judge model through the official Anthropic SDK, loaded on first use (a suite that
 * never judges never loads it). The verdict is a forced tool call whose input is validated.
 */

/** The request a judge sends: everything in it is part of the judge prompt's key. */
export interface JudgeRequest {
  model: string;
  max_tokens: number;
  system: string;
  /** The user message: the question, the answer and what to judge them by. */
  prompt: string;
  tool: { name: string; description: string; input_schema: Record<string, unknown> };
}

/** Where the call goes and how long it may take. */
export interface JudgeEndpoint {
  baseURL: string;
  apiKey: string;
  timeoutMs: number;
  maxRetries: number;
}

type AnthropicModule = typeof import("@anthropic-ai/sdk");
let sdk: Promise<AnthropicModule> | undefined;

/** The SDK, imported the first time a judge calls its model. */
function loadSdk(): Promise<AnthropicModule> {
  sdk ??= import("@anthropic-ai/sdk");
  return sdk;
}

const REFUSAL = /\b(I can(?:no|')t|I won't|I will not|I am unable|I'm unable|I refuse|I must decline)\b/i;

/** Calls the judge model once and returns its verdict, validated by `schema`; a JudgeError otherwise. */
export async function callJudge<Verdict>(
  request: JudgeRequest,
  endpoint: JudgeEndpoint,
  schema: z.ZodType<Verdict>,
): Promise<Verdict> {
  const module = await loadSdk();
  const Anthropic = module.default;
  const client = new Anthropic({
    apiKey: endpoint.apiKey,
    baseURL: endpoint.baseURL,
    timeout: endpoint.timeoutMs,
    maxRetries: endpoint.maxRetries,
  });
  let message: import("@anthropic-ai/sdk").Anthropic.Message;
  try {
    message = await client.messages.create({
      model: request.model,
      max_tokens: request.max_tokens,
      system: request.system,
      messages: [{ role: "user", content: request.prompt }],
      tools: [
        {
          name: request.tool.name,
          description: request.tool.description,
          input_schema: request.tool.input_schema as { type: "object" },
        },
      ],
      tool_choice: { type: "tool", name: request.tool.name },
    });
  } catch (error) {
    throw callError(error, module, endpoint);
  }
  if (message.stop_reason === "refusal") {
    const said = textOf(message.content);
    throw new JudgeError(
      "refused",
      `the judge model refused to grade (stop_reason "refusal")${said ? `: ${quote(said)}` : ""}`,
    );
  }
  if (message.stop_reason === "max_tokens") {
    throw new JudgeError(
      "malformed",
      `the judge model's verdict was cut off at max_tokens (${request.max_tokens}): raise maxTokens`,
    );
  }
  const call = message.content.find((block) => block.type === "tool_use" && block.name === request.tool.name);
  if (call?.type !== "tool_use") {
    const said = textOf(message.content);
    if (said && REFUSAL.test(said)) {
      throw new JudgeError("refused", `the judge model refused to grade: ${quote(said)}`);
    }
    throw new JudgeError(
      "malformed",
      `the judge model gave no verdict (no ${request.tool.name} call)${said ? `; it said: ${quote(said)}` : ""}`,
    );
  }
  const parsed = schema.safeParse(call.input);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(verdict)"}: ${issue.message}`)
      .join("; ");
    throw new JudgeError(
      "malformed",
      `the judge model's verdict is malformed: ${issues}; it sent ${quote(JSON.stringify(call.input))}`,
    );
  }
  return parsed.data;
}

/** The SDK's error as a JudgeError that says what happened. */
function callError(error: unknown, module: AnthropicModule, endpoint: JudgeEndpoint): JudgeError {
  if (error instanceof module.APIConnectionTimeoutError) {
    return new JudgeError(
      "timeout",
      `the judge model did not answer within ${endpoint.timeoutMs} ms (${endpoint.maxRetries} retries)`,
    );
  }
  if (error instanceof module.APIError && typeof error.status === "number") {
    const said = error.apiMessage ?? error.message;
    if (said.includes("@evals/vcr replay diverged")) return new JudgeError("diverged", said);
    return new JudgeError("api-error", `the judge model answered HTTP ${error.status}: ${said}`);
  }
  if (error instanceof module.APIError) {
    return new JudgeError("api-error", `could not reach the judge model: ${error.message}`);
  }
  return new JudgeError("api-error", `the judge call failed: ${(error as Error)?.message ?? String(error)}`);
}

function textOf(content: Array<{ type: string; text?: string }>): string {
  return content
    .filter((block) => block.type === "text" && typeof block.text === "string")
    .map((block) => block.text)
    .join("\n")
    .trim();
}

function quote(text: string, max = 200): string {
  const oneLine = text.replace(/\s+/g, " ");
  return JSON.stringify(oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine);
}
