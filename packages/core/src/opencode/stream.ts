/**
 * The shapes OpenCode 1.18.33 prints with `opencode run --format json` (one object per line) and
 * stores per session (`opencode export`): see shared/reference/opencode-cli.md. Only the fields the
 * runner reads are typed; everything else is kept as it came.
 */

export interface OpenCodeToolState {
  status: "pending" | "running" | "completed" | "error";
  input?: Record<string, unknown>;
  output?: string;
  error?: string;
  title?: string;
  metadata?: Record<string, unknown>;
  time?: { start?: number; end?: number };
}

export interface OpenCodeTokens {
  total?: number;
  input?: number;
  output?: number;
  reasoning?: number;
  cache?: { read?: number; write?: number };
}

/** One part of a message: text, reasoning, tool, step-start, step-finish, ... */
export interface OpenCodePart {
  id?: string;
  messageID?: string;
  sessionID?: string;
  type: string;
  text?: string;
  tool?: string;
  callID?: string;
  state?: OpenCodeToolState;
  reason?: string;
  tokens?: OpenCodeTokens;
  cost?: number;
  time?: { start?: number; end?: number };
}

/** `{type: "error", error: {name: "APIError", data: {message, statusCode, isRetryable, ...}}}`. */
export interface OpenCodeError {
  name?: string;
  data?: { message?: string; statusCode?: number; isRetryable?: boolean; responseBody?: string };
}

/** One line of `opencode run --format json`. */
export interface OpenCodeStreamLine {
  type: string;
  timestamp?: number;
  sessionID?: string;
  part?: OpenCodePart;
  error?: OpenCodeError;
}

/** What `opencode export <sessionID>` prints. */
export interface OpenCodeExport {
  info: {
    id: string;
    parentID?: string;
    title?: string;
    agent?: string;
    version?: string;
    directory?: string;
    model?: { id?: string; providerID?: string };
  };
  messages: { info: { id: string; role: string; agent?: string }; parts: OpenCodePart[] }[];
}

export function isOpenCodeStreamLine(value: unknown): value is OpenCodeStreamLine {
  return (
    typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string"
  );
}

/** The parts of the stream, in order (error lines and unknown lines have none). */
export function partsOf(lines: readonly OpenCodeStreamLine[]): OpenCodePart[] {
  return lines.flatMap((line) => (line.part ? [line.part] : []));
}

/** The parts of an exported session's assistant messages, in order. */
export function exportedParts(session: OpenCodeExport): OpenCodePart[] {
  return session.messages.filter((message) => message.info.role === "assistant").flatMap((m) => m.parts);
}
