/**
 * Redaction of secrets before anything is written to disk: API keys in headers, `sk-ant-…` tokens
 * anywhere, the value of ANTHROPIC_API_KEY, and the user's own patterns.
 */

export const REDACTED = "[REDACTED]";

/** Headers whose values are always secret. */
export const SECRET_HEADERS = [
  "x-api-key",
  "authorization",
  "proxy-authorization",
  "cookie",
  "set-cookie",
  "anthropic-api-key",
] as const;

/** Anthropic API keys and OAuth tokens. */
const ANTHROPIC_TOKEN = /sk-ant-[A-Za-z0-9_-]+/g;

export interface RedactOptions {
  /** More patterns to replace with [REDACTED] in every string (keys and values). */
  patterns?: Array<RegExp | string>;
  /** More header names whose values are secret. */
  headers?: string[];
  /**
   * Literal secrets to remove wherever they appear, besides the values of ANTHROPIC_API_KEY and
   * ANTHROPIC_AUTH_TOKEN (always removed when they are set).
   */
  secrets?: string[];
}

function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function defaultSecrets(): string[] {
  return [process.env.ANTHROPIC_API_KEY, process.env.ANTHROPIC_AUTH_TOKEN].filter(
    (value): value is string => typeof value === "string" && value.length >= 8,
  );
}

export interface Redactor {
  /** A string with every secret replaced. */
  text(value: string): string;
  /** A deep copy of `value` with secrets replaced in every string, and secret headers blanked. */
  value<T>(value: T): T;
  /** Header map with secret header values replaced. */
  headers(headers: Record<string, string>): Record<string, string>;
  /** The secrets still found in `text` (empty when it is clean): the last check before a write. */
  leaks(text: string): string[];
}

export function createRedactor(options: RedactOptions = {}): Redactor {
  const patterns: RegExp[] = [
    ANTHROPIC_TOKEN,
    ...[...defaultSecrets(), ...(options.secrets ?? [])]
      .filter((secret) => secret.length > 0)
      .map((secret) => new RegExp(escapeRegExp(secret), "g")),
    ...(options.patterns ?? []).map((pattern) =>
      typeof pattern === "string"
        ? new RegExp(escapeRegExp(pattern), "g")
        : new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`),
    ),
  ];
  const secretHeaders = new Set([
    ...SECRET_HEADERS,
    ...(options.headers ?? []).map((name) => name.toLowerCase()),
  ]);

  const text = (value: string): string => {
    let out = value;
    for (const pattern of patterns) {
      pattern.lastIndex = 0;
      out = out.replace(pattern, REDACTED);
    }
    return out;
  };

  const headers = (map: Record<string, string>): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(map)) {
      out[text(name)] = secretHeaders.has(name.toLowerCase()) ? REDACTED : text(value);
    }
    return out;
  };

  const deep = (value: unknown): unknown => {
    if (typeof value === "string") return text(value);
    if (Array.isArray(value)) return value.map(deep);
    if (value !== null && typeof value === "object") {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        out[text(key)] =
          secretHeaders.has(key.toLowerCase()) && typeof item === "string" ? REDACTED : deep(item);
      }
      return out;
    }
    return value;
  };

  const leaks = (serialized: string): string[] => {
    const found: string[] = [];
    for (const pattern of patterns) {
      pattern.lastIndex = 0;
      const match = pattern.exec(serialized);
      if (match) found.push(`${match[0].slice(0, 10)}… (${pattern.source.slice(0, 30)})`);
    }
    return found;
  };

  return { text, headers, value: <T>(value: T) => deep(value) as T, leaks };
}
