/**
 * The slice of the Anthropic Messages API that the claude CLI speaks, as plain types. Requests are
 * kept loose (the CLI adds fields between versions); replies are what our sources produce.
 */

export interface TextBlock {
  type: "text";
  text: string;
  [key: string]: unknown;
}

export interface ToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content?: string | Array<{ type: string; text?: string; [key: string]: unknown }>;
  is_error?: boolean;
  [key: string]: unknown;
}

export interface ThinkingBlock {
  type: "thinking";
  thinking: string;
  signature: string;
  [key: string]: unknown;
}

/** Any content block of a request message (unknown types are passed through untouched). */
export type RequestContentBlock =
  | TextBlock
  | ToolUseBlock
  | ToolResultBlock
  | ThinkingBlock
  | { type: string; [key: string]: unknown };

export interface RequestMessage {
  role: "user" | "assistant" | "system" | string;
  content: string | RequestContentBlock[];
}

/** The JSON body of `POST /v1/messages`. */
export interface MessagesRequest {
  model: string;
  messages: RequestMessage[];
  system?: string | TextBlock[];
  tools?: Array<{ name: string; [key: string]: unknown }>;
  metadata?: { user_id?: string; [key: string]: unknown };
  max_tokens?: number;
  stream?: boolean;
  [key: string]: unknown;
}

/** A content block a source can answer with. */
export type ReplyContentBlock = TextBlock | ToolUseBlock | ThinkingBlock;

export interface ReplyUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

/** A model message to send back. `usage` is estimated from the request and the content when absent. */
export interface ModelMessageReply {
  kind: "message";
  content: ReplyContentBlock[];
  stop_reason: "end_turn" | "tool_use" | "max_tokens" | "stop_sequence" | "pause_turn" | "refusal";
  usage?: Partial<ReplyUsage>;
  /** The model name to report; defaults to the request's model. */
  model?: string;
  /** The message id; defaults to a unique `msg_vcr_…` id. */
  id?: string;
}

/** An API error (HTTP status + Anthropic error body). */
export interface ModelErrorReply {
  kind: "error";
  status: number;
  /** Anthropic error type; derived from the status when absent. */
  error_type?: string;
  message: string;
}

export type ModelReply = ModelMessageReply | ModelErrorReply;

/** The Anthropic error type for an HTTP status. */
export function errorTypeForStatus(status: number): string {
  if (status === 400) return "invalid_request_error";
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 413) return "request_too_large";
  if (status === 429) return "rate_limit_error";
  if (status === 529) return "overloaded_error";
  return "api_error";
}

/** The JSON body of an Anthropic API error. */
export function errorBody(status: number, message: string, errorType?: string) {
  return { type: "error", error: { type: errorType ?? errorTypeForStatus(status), message } };
}
