import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "./atomic-write.js";

/**
 * The one redactor of the framework: every file it writes (run folders, kept sandboxes, recordings,
 * cassettes, reports, OTel exports) goes through it. It replaces, with [REDACTED]:
 * - well-known secret formats (SECRET_PATTERNS: Anthropic, OpenAI, Stripe, Slack, GitHub, AWS,
 *   Google, npm keys, JWTs, bearer tokens, passwords in URLs and in NAME=value lines, private key
 *   blocks with or without their END line);
 * - the values of secret-looking environment variables (names with KEY, TOKEN, SECRET, PASSWORD,
 *   CREDENTIAL or AUTH) of the caller and of the run, and the values of ANTHROPIC_CUSTOM_HEADERS;
 * - every value of the environment a case sets (`secretEnv`, e.g. agent.env), whatever its name;
 * - the caller's own literal secrets and patterns, and those remembered by this process
 *   (rememberSecrets: a run's, so the reports written after it leave them out too).
 * Literal secrets are also found JSON-escaped, URL-encoded and in base64 (at any alignment, so
 * inside a longer base64 text too).
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
  "x-goog-api-key",
] as const;

/** Environment variable names whose values are treated as secrets. */
export const SECRET_ENV_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH/i;

/** The characters of a PEM body (base64, header lines, raw or JSON-escaped line breaks). */
const PEM_BODY = String.raw`(?:\\+[nr]|[A-Za-z0-9+/=:,.\s-])`;

/**
 * Where a token starts: not inside a word, or right after a JSON-escaped line break or tab (`\n` in
 * a JSONL file is a backslash and an "n": a word character that `\b` would not break at).
 */
const START = String.raw`(?:(?<![A-Za-z0-9_])|(?<=\\[nrt]))`;

/** A global pattern whose `\b` at the start of a token is START. */
function token(source: string, flags = "g"): RegExp {
  return new RegExp(source.replaceAll(String.raw`\b`, START), flags);
}

/**
 * Secret formats, replaced wherever they appear. A hand list (see the README for why no published
 * rule set is used): each names the provider or shape it catches. Lookbehinds keep the context
 * (`postgres://user:[REDACTED]@host`, `Bearer [REDACTED]`) so reports stay readable.
 */
export const SECRET_PATTERNS: readonly RegExp[] = [
  // Anthropic (sk-ant-…), OpenAI (sk-…, sk-proj-…, sk-svcacct-…) keys.
  token("sk-ant-[A-Za-z0-9_-]+"),
  token(String.raw`\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}`),
  // Stripe secret and restricted keys, webhook secrets.
  token(String.raw`\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}`),
  token(String.raw`\bwhsec_[A-Za-z0-9]{16,}`),
  // GitHub tokens.
  token(String.raw`\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}`),
  token(String.raw`\bgithub_pat_[A-Za-z0-9_]{20,}`),
  // AWS access key ids, and secret keys where a `name = value` line names them (not a JSON key:
  // value() sees a key and its value apart, and the last check of a recording must find nothing).
  token(String.raw`\b(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])`),
  token(String.raw`(?<=aws_?secret_?access_?key\s*[:=]\s*(?:\\*["'])?)[A-Za-z0-9/+]{40}`, "gi"),
  // Slack tokens and webhooks.
  token(String.raw`\bxox[abeprs]-[A-Za-z0-9-]{10,}`),
  token(String.raw`\bxapp-\d-[A-Za-z0-9-]{10,}`),
  token(String.raw`hooks\.slack\.com/services/[A-Za-z0-9/]+`),
  // Google API keys, npm tokens.
  token(String.raw`\bAIza[0-9A-Za-z_-]{35}`),
  token(String.raw`\bnpm_[A-Za-z0-9]{36}`),
  // JSON Web Tokens.
  token(String.raw`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`),
  // Bearer and Basic credentials: with a digit or a lower-upper case change ("Basic Functionality" is prose).
  token(
    String.raw`(?<=\b(?:Bearer|Basic)\s+)(?!\[REDACTED\])(?=[A-Za-z0-9._~+/-]*(?:\d|[a-z][A-Z]))[A-Za-z0-9._~+/-]{12,}=*`,
  ),
  // The password of a URL: scheme://user:password@host.
  token(String.raw`(?<=[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@"'\\]*:)(?!\[REDACTED\]@)[^\s@/"'\\]+(?=@)`),
  // NAME=value where the NAME says secret (an `env` listing, a .env file, `export NAME="value"`).
  token(
    String.raw`(?<=[A-Z0-9_]*(?:PASSWORD|PASSWD|SECRET|TOKEN|API_KEY|PRIVATE_KEY)[A-Z0-9_]*=(?:\\*["'])?)(?![/~.]|\[REDACTED\])[^\s"'\\]{8,}`,
  ),
  // A private key: from its BEGIN line to its END line, or, cut off, to the end of its body.
  token(
    `-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----${PEM_BODY}*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|(?!${PEM_BODY}))`,
  ),
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
   * An environment every value of which is a secret, whatever its name (a case's agent.env): all
   * but short values, paths, numbers and booleans.
   */
  secretEnv?: Record<string, string | undefined>;
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

/** The values of an environment set on purpose (a case's agent.env) that can be secrets. */
export function secretsFromEnvValues(env: Record<string, string | undefined>): string[] {
  return Object.values(env).filter((value): value is string => value !== undefined && looksSecret(value));
}

/** What this process has been told is secret: every redactor made after includes it. */
const remembered = { secrets: new Set<string>(), patterns: new Map<string, RegExp>() };

/**
 * Remembers a run's secrets (its literal secrets, secretEnv values, env secrets and patterns) for
 * the rest of this process, so every later writer (run folders, reports, OTel exports) leaves them
 * out without being handed them.
 */
export function rememberSecrets(options: RedactOptions): void {
  for (const secret of literalSecretsOf(options)) remembered.secrets.add(secret);
  for (const pattern of options.patterns ?? []) {
    const regex = asGlobalRegExp(pattern);
    remembered.patterns.set(`${regex.source}/${regex.flags}`, regex);
  }
}

function literalSecretsOf(options: RedactOptions): string[] {
  return [
    ...secretsFromEnv(options.env ?? {}),
    ...secretsFromEnvValues(options.secretEnv ?? {}),
    ...(options.secrets ?? []),
  ].filter((secret) => secret.length > 0);
}

function asGlobalRegExp(pattern: RegExp | string): RegExp {
  return typeof pattern === "string"
    ? new RegExp(escapeRegExp(pattern), "g")
    : new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`);
}

/**
 * The forms a secret is written in besides itself: JSON-escaped, URL-encoded, and base64 (standard
 * and URL-safe; for each of the three alignments it can have inside a longer base64 text, the
 * characters that depend on the secret alone).
 */
export function encodedForms(secret: string): string[] {
  const forms = new Set([
    secret,
    JSON.stringify(secret).slice(1, -1),
    encodeURIComponent(secret),
    encodeURIComponent(secret).replace(/%20/g, "+"),
  ]);
  const bytes = Buffer.from(secret, "utf8");
  for (const shift of [0, 1, 2]) {
    const base64 = Buffer.concat([Buffer.alloc(shift), bytes])
      .toString("base64")
      .replace(/=+$/, "");
    // Leading characters mix in the bytes before; the last one, when partial, the bytes after.
    const start = [0, 2, 3][shift]!;
    const end = (shift + bytes.length) % 3 === 0 ? base64.length : base64.length - 1;
    const core = base64.slice(start, end);
    if (core.length < MIN_SECRET_LENGTH) continue;
    forms.add(core);
    forms.add(core.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return [...forms];
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
    ...literalSecretsOf(options),
    ...remembered.secrets,
  ]) {
    for (const form of encodedForms(secret)) literals.add(form);
  }
  const patterns: RegExp[] = [
    // Literals first, in one alternation (one pass however many runs' secrets the process holds),
    // longest first: a secret that contains another (or a pattern's match) goes whole.
    ...(literals.size > 0
      ? [
          new RegExp(
            [...literals]
              .sort((a, b) => b.length - a.length)
              .map(escapeRegExp)
              .join("|"),
            "g",
          ),
        ]
      : []),
    ...SECRET_PATTERNS.map((pattern) => new RegExp(pattern.source, pattern.flags)),
    ...(options.patterns ?? []).map(asGlobalRegExp),
    ...[...remembered.patterns.values()].map((pattern) => new RegExp(pattern.source, pattern.flags)),
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
