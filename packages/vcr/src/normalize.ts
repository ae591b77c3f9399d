import { claudeProjectKey } from "@evals/core";
import {
  GEMINI_CWD_LINE,
  GEMINI_HOME,
  GEMINI_LINE_RULES,
  isGeminiBody,
  withSkillsInNameOrder,
} from "./gemini-normalize.js";
import { RESPONSES_LINE_RULES, withoutRunIds } from "./responses-normalize.js";
import { canonicalJson } from "./stable-json.js";
import type { WireRequest } from "./wire.js";

/**
 * The normalized form of a request: what a replay matches on. It drops or masks everything that
 * differs between two runs of the same scenario (observed with Claude Code 2.1.330):
 *
 * - `metadata.user_id` (device id, session id) and every `cache_control` marker;
 * - the hex suffix of `cc_version=2.1.330.b55` in the billing header line of the system prompt;
 * - the environment lines (Platform, Shell, OS Version, Is a git repository) and "Today's date is …";
 * - the `# gitStatus` context (branch, status, recent commits), and the whole context block when
 *   that is all it carries (a git repository has it, a plain folder does not);
 * - the working directory and the config directory (and the cwd's project key, `claudeProjectKey`:
 *   the dash-escaped cwd, cut and hashed past 200 characters), found in the request itself,
 *   wherever they appear (tool inputs and outputs too);
 * - the project key of the CLI's memory folder (`<config dir>/projects/<key>/memory`), read from the
 *   request: the CLI keys it by the git root above the cwd when there is one (a stray `/tmp/.git`
 *   makes it `-tmp`), so it need not be the escaped cwd;
 * - subagent ids (`agentId: a21b…`) and the `duration_ms` and `subagent_tokens` of subagent hand-backs;
 * - the order of the tool list, and string vs. `[{type: "text"}]` message content;
 * - the query string (`?beta=true`) and all headers.
 */

export interface NormalizeOptions {
  /** More rewrites applied to every string after the built-in ones: `[pattern, replacement]`. */
  replace?: Array<[RegExp | string, string]>;
  /**
   * Body fields to leave out of the match, as dotted paths where `*` matches any key or index:
   * `"max_tokens"`, `"thinking"`, `"messages.*.content.*.citations"`.
   */
  ignore?: string[];
  /** Keep the tool list in the order it was sent (default: sorted by name). */
  keepToolOrder?: boolean;
}

export interface NormalizedRequest {
  method: string;
  /** The path without its query string. */
  path: string;
  body: unknown;
}

/** Paths the CLI puts into requests that differ from run to run, found in the request itself. */
export interface RequestEnvironment {
  cwd?: string;
  configDir?: string;
  /**
   * Claude Code's memory folder, `<configDir>/projects/<key>/memory`. The key (`claudeProjectKey`) is
   * that of the git root of the cwd when the cwd is inside a repository (even one whose root is far
   * above it), else that of the cwd.
   */
  memoryDir?: string;
  agentIds: string[];
}

// Claude Code's system prompt, or Codex's <environment_context> (cwd) and skill roots (CODEX_HOME).
const CWD_LINE = /Primary working directory: (.+)|<cwd>(.+?)<\/cwd>/;
const CONFIG_DIR = /persistent file-based memory at `(.+?)\/projects\/|`r0` = `(.+?)\/skills\/\.system`/;
const AGENT_ID = /agentId: ([A-Za-z0-9_-]+)/g;

function forEachString(value: unknown, visit: (text: string) => void): void {
  if (typeof value === "string") visit(value);
  else if (Array.isArray(value)) for (const item of value) forEachString(item, visit);
  else if (value !== null && typeof value === "object")
    for (const item of Object.values(value)) forEachString(item, visit);
}

/** The working directory, config directory and subagent ids a request mentions. */
export function requestEnvironment(body: unknown): RequestEnvironment {
  const environment: RequestEnvironment = { agentIds: [] };
  // The CLI puts them in the system prompt and the messages; the tool list never has them.
  const record = body as { system?: unknown; messages?: unknown } | null;
  const searched =
    record && typeof record === "object" && "messages" in record
      ? [record.system, record.messages]
      : record && typeof record === "object" && "input" in record
        ? (record as { input: unknown }).input
        : isGeminiBody(body)
          ? [body.systemInstruction, body.contents]
          : body;
  forEachString(searched, (text) => {
    if (!environment.cwd) {
      const match = CWD_LINE.exec(text) ?? GEMINI_CWD_LINE.exec(text);
      environment.cwd = (match?.[1] ?? match?.[2])?.trim();
    }
    if (!environment.configDir) {
      const match = CONFIG_DIR.exec(text) ?? GEMINI_HOME.exec(text);
      environment.configDir = match?.[1] ?? match?.[2];
    }
    for (const match of text.matchAll(AGENT_ID)) {
      if (!environment.agentIds.includes(match[1]!)) environment.agentIds.push(match[1]!);
    }
  });
  if (!environment.configDir && environment.cwd) {
    // Any `<config dir>/projects/<cwd's key>` path gives the config dir away.
    const marker = `/projects/${claudeProjectKey(environment.cwd)}`;
    forEachString(searched, (text) => {
      if (environment.configDir) return;
      const at = text.indexOf(marker);
      if (at <= 0) return;
      const start =
        Math.max(...[" ", "`", "\n", "'", '"', "("].map((stop) => text.lastIndexOf(stop, at))) + 1;
      if (start < at) environment.configDir = text.slice(start, at);
    });
  }
  if (environment.configDir) environment.memoryDir = memoryDirIn(searched, environment.configDir);
  return environment;
}

/** The first `<configDir>/projects/<key>/memory` a request names: the key is read, not computed. */
function memoryDirIn(searched: unknown, configDir: string): string | undefined {
  const pattern = new RegExp(`${escapeRegExp(configDir)}/projects/[A-Za-z0-9-]+/memory(?![\\w-])`);
  let found: string | undefined;
  forEachString(searched, (text) => {
    if (!found && text.includes(`${configDir}/projects/`)) found = pattern.exec(text)?.[0];
  });
  return found;
}

/** A rewrite: the pattern, its replacement, and a text the pattern cannot match without (a fast pre-check). */
type Rewrite = [pattern: RegExp, replacement: string, needle?: string];

const LINE_RULES: Rewrite[] = [
  [/(cc_version=\d+\.\d+\.\d+)\.[0-9a-f]+;/g, "$1;", "cc_version="],
  [/( - Platform: ).*/g, "$1<platform>", " - Platform: "],
  [/( - Shell: ).*/g, "$1<shell>", " - Shell: "],
  [/( - OS Version: ).*/g, "$1<os-version>", " - OS Version: "],
  [/( - Is a git repository: ).*/g, "$1<is-git-repo>", " - Is a git repository: "],
  [/(Today's date is )\d{4}-\d{2}-\d{2}/g, "$1<date>", "Today's date is "],
  [
    /# gitStatus\n[\s\S]*?(?=\n# |\n\nClaude Code attached|\n?<\/system-reminder>|$)/g,
    "# gitStatus\n<git-status>",
    "# gitStatus",
  ],
  [/(<usage>[\s\S]*?duration_ms: )\d+/g, "$1<duration>", "<usage>"],
  [/(<usage>[\s\S]*?subagent_tokens: )\d+/g, "$1<tokens>", "<usage>"],
  ...RESPONSES_LINE_RULES,
];

function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The string rewrites for one request: built-in rules, its own paths and ids, then the user's. */
function rewritesFor(environment: RequestEnvironment, options: NormalizeOptions, gemini = false): Rewrite[] {
  const rules: Rewrite[] = [...LINE_RULES];
  const paths: Array<[string, string]> = [];
  if (environment.configDir) paths.push([environment.configDir, "<config-dir>"]);
  if (environment.memoryDir)
    paths.push([environment.memoryDir, "<config-dir>/projects/<project-key>/memory"]);
  if (environment.cwd) {
    paths.push([environment.cwd, "<cwd>"]);
    paths.push([claudeProjectKey(environment.cwd), "<cwd-escaped>"]);
  }
  // Longest first, so a path inside another is not cut in two.
  paths.sort((a, b) => b[0].length - a[0].length);
  for (const [path, label] of paths) rules.push([new RegExp(escapeRegExp(path), "g"), label, path]);
  if (gemini) rules.push(...GEMINI_LINE_RULES);
  environment.agentIds.forEach((id, index) => {
    rules.push([new RegExp(`\\b${escapeRegExp(id)}\\b`, "g"), `<agent-${index + 1}>`, id]);
  });
  for (const [pattern, replacement] of options.replace ?? []) {
    rules.push([
      typeof pattern === "string"
        ? new RegExp(escapeRegExp(pattern), "g")
        : new RegExp(pattern.source, pattern.flags.includes("g") ? pattern.flags : `${pattern.flags}g`),
      replacement,
    ]);
  }
  return rules;
}

function rewriteStrings(value: unknown, rules: Rewrite[]): unknown {
  if (typeof value === "string") {
    let out = value;
    for (const [pattern, replacement, needle] of rules) {
      if (needle !== undefined && !out.includes(needle)) continue;
      pattern.lastIndex = 0;
      out = out.replace(pattern, replacement);
    }
    return out;
  }
  if (Array.isArray(value)) return value.map((item) => rewriteStrings(item, rules));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (key === "cache_control") continue;
      out[key] = rewriteStrings(item, rules);
    }
    return out;
  }
  return value;
}

/** The CLI's context reminder when all it carries is the (masked) git status. */
const GIT_STATUS_ONLY =
  /^<system-reminder>\nAs you answer the user's questions, you can use the following context:\n# gitStatus\n<git-status>\n\nClaude Code attached this context automatically[^\n]*\n<\/system-reminder>\s*$/;

function isGitStatusOnly(block: unknown): boolean {
  const { type, text } = (block ?? {}) as { type?: unknown; text?: unknown };
  return type === "text" && typeof text === "string" && GIT_STATUS_ONLY.test(text);
}

function dropPath(value: unknown, segments: string[]): void {
  if (segments.length === 0 || value === null || typeof value !== "object") return;
  const [head, ...rest] = segments;
  const keys = head === "*" ? Object.keys(value) : [head!];
  for (const key of keys) {
    if (!(key in value)) continue;
    if (rest.length === 0) {
      if (Array.isArray(value)) (value as unknown[])[Number(key)] = "<ignored>";
      else delete (value as Record<string, unknown>)[key];
    } else {
      dropPath((value as Record<string, unknown>)[key], rest);
    }
  }
}

/** The normalized body of a Messages API request (see the module comment for what is masked). */
export function normalizeBody(body: unknown, options: NormalizeOptions = {}): unknown {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return body;
  const environment = requestEnvironment(body);
  const gemini = isGeminiBody(body);
  let normalized = withoutRunIds(rewriteStrings(body, rewritesFor(environment, options, gemini))) as Record<
    string,
    unknown
  >;
  if (gemini) normalized = withSkillsInNameOrder(normalized);

  const metadata = normalized.metadata as Record<string, unknown> | undefined;
  if (metadata && typeof metadata === "object") {
    delete metadata.user_id;
    if (Object.keys(metadata).length === 0) delete normalized.metadata;
  }
  if (Array.isArray(normalized.messages)) {
    normalized.messages = normalized.messages.map((message) => {
      if (!message || typeof message !== "object") return message;
      const { content } = message as { content?: unknown };
      if (typeof content === "string") return { ...message, content: [{ type: "text", text: content }] };
      // A git repository adds a context block that a plain folder does not have.
      if (Array.isArray(content))
        return { ...message, content: content.filter((block) => !isGitStatusOnly(block)) };
      return message;
    });
  }
  if (typeof normalized.system === "string") normalized.system = [{ type: "text", text: normalized.system }];
  if (Array.isArray(normalized.tools) && !options.keepToolOrder) {
    normalized.tools = [...normalized.tools].sort((a, b) =>
      String((a as { name?: unknown }).name ?? "").localeCompare(
        String((b as { name?: unknown }).name ?? ""),
      ),
    );
  }
  for (const path of options.ignore ?? []) dropPath(normalized, path.split("."));
  return normalized;
}

export function normalizeRequest(request: WireRequest, options: NormalizeOptions = {}): NormalizedRequest {
  return {
    method: request.method.toUpperCase(),
    path: request.path.split("?")[0] ?? request.path,
    body: request.body !== undefined ? normalizeBody(request.body, options) : (request.raw_body ?? null),
  };
}

/** The match key of a normalized request: its canonical JSON. */
export function canonicalKey(normalized: NormalizedRequest): string {
  return canonicalJson(normalized);
}

/** The match key of a request: the canonical JSON of its normalized form. */
export function requestKey(request: WireRequest, options: NormalizeOptions = {}): string {
  return canonicalKey(normalizeRequest(request, options));
}

/* Across Claude Code versions. */

const USER_AGENT_VERSION = /claude-cli\/(\d+\.\d+\.\d+[\w.-]*)/;
const BILLING_VERSION = /cc_version=(\d+\.\d+\.\d+)/;

/**
 * The Claude Code version that sent a request: from its `user-agent` (`claude-cli/2.1.330 (external,
 * sdk-cli)`), else from the billing line of its system prompt (`cc_version=2.1.330.b55`).
 */
export function claudeVersionOf(request: Pick<WireRequest, "headers" | "body">): string | undefined {
  const fromHeader = USER_AGENT_VERSION.exec(request.headers["user-agent"] ?? "")?.[1];
  if (fromHeader) return fromHeader;
  let fromSystem: string | undefined;
  forEachString((request.body as { system?: unknown } | undefined)?.system, (text) => {
    fromSystem ??= BILLING_VERSION.exec(text)?.[1];
  });
  return fromSystem;
}

/**
 * What a Claude Code release changes in its requests by itself, with the same user, case and
 * model: left out of the match when a replay's CLI is not the version that recorded it.
 *
 * - `system`: the built-in system prompt (and the version in its billing line). Your own parts of
 *   it (`appendSystemPrompt`, an agent file, the model) are run options, which the recording's file
 *   name hashes, so a changed one still finds no recording;
 * - each tool's description and input schema (its `name` stays: the recorded answers call tools by
 *   name, and a tool the new CLI no longer offers must not be replayed into);
 * - the request knobs the CLI picks per version: `max_tokens`, `thinking`, `context_management`,
 *   `output_config`;
 * - the version strings themselves, wherever they appear.
 *
 * The messages stay: they are what the agent saw (the prompt, CLAUDE.md, skills, tool results).
 */
export const VERSION_DEPENDENT_FIELDS = [
  "system",
  "tools[].description",
  "tools[].input_schema",
  "max_tokens",
  "thinking",
  "context_management",
  "output_config",
] as const;

/**
 * A normalized request without its version-dependent parts (see VERSION_DEPENDENT_FIELDS), with
 * each of `versions` masked as `<claude-version>` in every string.
 */
export function versionNeutral(normalized: NormalizedRequest, versions: string[]): NormalizedRequest {
  const { body } = normalized;
  if (body === null || typeof body !== "object" || Array.isArray(body)) return normalized;
  const masks: Rewrite[] = versions
    .filter(Boolean)
    .sort((a, b) => b.length - a.length)
    .map((version) => [new RegExp(`\\b${escapeRegExp(version)}\\b`, "g"), "<claude-version>", version]);
  const neutral = rewriteStrings(body, masks) as Record<string, unknown>;
  for (const field of ["system", "max_tokens", "thinking", "context_management", "output_config"]) {
    delete neutral[field];
  }
  if (Array.isArray(neutral.tools)) {
    neutral.tools = neutral.tools.map((tool) => {
      if (!tool || typeof tool !== "object") return tool;
      const { description: _description, input_schema: _schema, ...rest } = tool as Record<string, unknown>;
      return rest;
    });
  }
  return { ...normalized, body: neutral };
}
