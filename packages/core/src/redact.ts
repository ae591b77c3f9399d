import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "./atomic-write.js";

/**
 * The one redactor of the framework: every file it writes (run folders, kept sandboxes, recordings,
 * cassettes, reports) goes through it. It replaces, with [REDACTED]:
 * - well-known token formats (Anthropic, GitHub, AWS, Slack keys, private key blocks);
 * - the values of secret-looking environment variables (names with KEY, TOKEN, SECRET, PASSWORD,
 *   CREDENTIAL or AUTH) of the caller and of the run, and the values of ANTHROPIC_CUSTOM_HEADERS;
 * - the caller's own literal secrets and patterns.
 * Literal secrets are also found in their JSON-escaped form, as they appear inside JSON files.
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

/** Environment variable names whose values are treated as secrets. */
export const SECRET_ENV_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH/i;

/** Token formats that are secret wherever they appear. */
export const SECRET_PATTERNS: readonly RegExp[] = [
  /sk-ant-[A-Za-z0-9_-]+/g,
  /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  /\bxox[abprs]-[A-Za-z0-9-]{10,}/g,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
];

/** Shorter values are never treated as secrets (flags, ports, "true"). */
const MIN_SECRET_LENGTH = 8;

export interface RedactOptions {
  /** More patterns to replace with [REDACTED] in every string (keys and values). */
  patterns?: Array<RegExp | string>;
  /** More header names whose values are secret. */
  headers?: string[];
  /** Literal secrets to remove wherever they appear. */
  secrets?: string[];
  /**
   * An environment (e.g. the run's) whose secret-looking values are secrets too. The caller's own
   * `process.env` always is.
   */
  env?: Record<string, string | undefined>;
}

/**
 * The values of an environment that are secrets: those of variables named like SECRET_ENV_NAME, and
 * the header values of ANTHROPIC_CUSTOM_HEADERS ("Name: value" lines). Paths, numbers and short
 * values are left out: they are not secrets and would blank unrelated text.
 */
export function secretsFromEnv(env: Record<string, string | undefined>): string[] {
  const found: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (name === "ANTHROPIC_CUSTOM_HEADERS") {
      for (const line of value.split(/\r?\n/)) {
        const colon = line.indexOf(":");
        const headerValue = colon >= 0 ? line.slice(colon + 1).trim() : line.trim();
        if (looksSecret(headerValue)) found.push(headerValue);
      }
      continue;
    }
    if (SECRET_ENV_NAME.test(name) && looksSecret(value)) found.push(value);
  }
  return found;
}

/** The header names set by ANTHROPIC_CUSTOM_HEADERS. */
export function customHeaderNames(env: Record<string, string | undefined>): string[] {
  const value = env.ANTHROPIC_CUSTOM_HEADERS;
  if (!value) return [];
  return value
    .split(/\r?\n/)
    .map((line) => line.slice(0, Math.max(0, line.indexOf(":"))).trim())
    .filter(Boolean);
}

function looksSecret(value: string): boolean {
  const trimmed = value.trim();
  if (trimmed.length < MIN_SECRET_LENGTH) return false;
  if (/^[/~.]/.test(trimmed) || /^(true|false|\d+)$/i.test(trimmed)) return false;
  return true;
}

function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
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
  /** The patterns it applies (literal secrets included, escaped), e.g. to hand to another process. */
  readonly patterns: readonly RegExp[];
}

export function createRedactor(options: RedactOptions = {}): Redactor {
  const literals = new Set<string>();
  for (const secret of [
    ...secretsFromEnv(process.env),
    ...secretsFromEnv(options.env ?? {}),
    ...(options.secrets ?? []),
  ]) {
    if (secret.length === 0) continue;
    literals.add(secret);
    // Inside a JSON file the secret appears escaped.
    literals.add(JSON.stringify(secret).slice(1, -1));
  }
  const patterns: RegExp[] = [
    ...SECRET_PATTERNS.map((pattern) => new RegExp(pattern.source, pattern.flags)),
    // Longest first, so a secret that contains another is replaced whole.
    ...[...literals]
      .sort((a, b) => b.length - a.length)
      .map((secret) => new RegExp(escapeRegExp(secret), "g")),
    ...(options.patterns ?? []).map((pattern) =>
      typeof pattern === "string"
        ? new RegExp(escapeRegExp(pattern), "g")
        : new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`),
    ),
  ];
  const secretHeaders = new Set([
    ...SECRET_HEADERS,
    ...customHeaderNames(process.env).map((name) => name.toLowerCase()),
    ...customHeaderNames(options.env ?? {}).map((name) => name.toLowerCase()),
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

  return { text, headers, value: <T>(value: T) => deep(value) as T, leaks, patterns };
}

/**
 * Rewrites one file with its secrets replaced (atomically, keeping its mode); leaves it alone when it
 * holds none. Bytes are read as latin1, so binary files and every encoding survive unchanged.
 * Returns whether the file changed.
 */
export function redactFileSync(file: string, redactor: Pick<Redactor, "text">): boolean {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(file);
  } catch {
    return false;
  }
  if (!stat.isFile()) return false;
  const before = readFileSync(file, "latin1");
  const after = redactor.text(before);
  if (after === before) return false;
  writeFileAtomic(file, after, { encoding: "latin1", mode: stat.mode });
  return true;
}

/**
 * Redacts every regular file under `dir` (symbolic links are not followed). Returns the files that
 * changed. Best effort: a file that cannot be read or written is skipped.
 */
export function redactTreeSync(dir: string, redactor: Pick<Redactor, "text">): string[] {
  const changed: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return changed;
  }
  for (const entry of entries) {
    const path = join(dir, entry);
    try {
      const stat = lstatSync(path);
      if (stat.isDirectory()) changed.push(...redactTreeSync(path, redactor));
      else if (stat.isFile() && redactFileSync(path, redactor)) changed.push(path);
    } catch {
      // Vanished or unreadable: nothing we can do about it here.
    }
  }
  return changed;
}
