/**
 * The slice of the OpenAI Responses API that the Codex CLI speaks (`POST /v1/responses`, streamed),
 * as plain types. Requests are kept loose (the CLI adds fields between versions); replies are what
 * our sources produce. Observed with Codex CLI 0.169.0 (shared/reference/codex-cli.md).
 */

/** One item of a request's `input`: a message, a tool call the model made, or a tool's output. */
export interface ResponsesInputItem {
  type?: string;
  role?: string;
  content?: string | Array<{ type: string; text?: string; [key: string]: unknown }>;
  call_id?: string;
  name?: string;
  /** A function call's JSON arguments (`function_call`). */
  arguments?: string;
  /** A custom tool call's raw input (`custom_tool_call`, e.g. apply_patch's patch text). */
  input?: string;
  /** A tool's output (`function_call_output`, `custom_tool_call_output`). */
  output?: unknown;
  [key: string]: unknown;
}

/** The JSON body of `POST /v1/responses`. */
export interface ResponsesRequest {
  model: string;
  instructions?: string;
  input: ResponsesInputItem[];
  tools?: Array<{ type: string; name?: string; [key: string]: unknown }>;
  stream?: boolean;
  [key: string]: unknown;
}

/** An assistant message with one text. */
export interface ResponsesTextItem {
  type: "message";
  text: string;
}

/** A call of a function tool (`exec_command {cmd}`); `call_id` is filled in by the server when absent. */
export interface ResponsesFunctionCallItem {
  type: "function_call";
  name: string;
  arguments: Record<string, unknown>;
  call_id?: string;
}

/** A call of a freeform tool (`apply_patch` with the patch text). */
export interface ResponsesCustomToolCallItem {
  type: "custom_tool_call";
  name: string;
  input: string;
  call_id?: string;
}

/** A reasoning summary (shown by the CLI as reasoning, not as an answer). */
export interface ResponsesReasoningItem {
  type: "reasoning";
  summary: string;
}

/** An output item a script can answer with. */
export type ResponsesOutputItem =
  | ResponsesTextItem
  | ResponsesFunctionCallItem
  | ResponsesCustomToolCallItem
  | ResponsesReasoningItem;

export interface ResponsesUsage {
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens?: number;
  reasoning_output_tokens?: number;
}

/** A model response to send back. `usage` is estimated from the request and the output when absent. */
export interface ResponsesReply {
  kind: "response";
  output: ResponsesOutputItem[];
  usage?: Partial<ResponsesUsage>;
  /** The model name to report; defaults to the request's model. */
  model?: string;
  /** The response id; defaults to a unique `resp_vcr_…` id. */
  id?: string;
}

/**
 * An API error: the HTTP status and the message of the OpenAI error body. The same shape as the
 * Messages API's ModelErrorReply, so `apiError(...)` and `stall(...)` serve both.
 */
export interface ResponsesErrorReply {
  kind: "error";
  status: number;
  /** OpenAI error type; derived from the status when absent. */
  error_type?: string;
  message: string;
}

export type ResponsesModelReply = ResponsesReply | ResponsesErrorReply;

/** The JSON body of an OpenAI API error. */
export function responsesErrorBody(status: number, message: string, errorType?: string) {
  const type =
    errorType ??
    (status === 429
      ? "rate_limit_exceeded"
      : status === 401
        ? "invalid_api_key"
        : status >= 500
          ? "server_error"
          : "invalid_request_error");
  return { error: { message, type, param: null, code: type } };
}

export function isResponsesPath(path: string): boolean {
  const pathname = path.split("?")[0] ?? path;
  return pathname === "/v1/responses" || pathname === "/responses";
}
