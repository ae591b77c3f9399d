import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/**
 * Gemini's own record of its sessions, read from disk (no model call, unlike `--list-sessions`):
 * `<GEMINI_CLI_HOME>/.gemini/projects.json` maps a project folder to a short name, and
 * `tmp/<short name>/chats/session-<date>-<first 8 of id>.jsonl` holds each session: a header
 * line `{sessionId, projectHash, startTime, lastUpdated, kind}`, then message lines
 * `{id, timestamp, type: "user" | "gemini", content}` and `{"$set": {...}}` updates.
 */
export interface GeminiSession {
  sessionId: string;
  /** The file with the conversation (the longest, when a resume left a stub file beside it). */
  file: string;
  /** Every file of this session id. */
  files: string[];
  startTime: string;
  lastUpdated: string;
  /** Prompts the user sent (Gemini's own setup message is not counted). */
  turns: number;
  messages: number;
  firstPrompt: string | null;
  lastPrompt: string | null;
  summary: string | null;
}

export interface SessionMessage {
  type: string;
  text: string;
  timestamp: string | null;
}

export interface ParsedSessionFile {
  sessionId: string;
  projectHash: string | null;
  startTime: string;
  lastUpdated: string;
  kind: string | null;
  summary: string | null;
  messages: SessionMessage[];
}

/** The folders where Gemini keeps this project's chats (by short name, and by hash in older versions). */
export function chatFolders(dotGemini: string, projectRoot: string): string[] {
  const folders: string[] = [];
  const shortName = projectShortName(dotGemini, projectRoot);
  if (shortName) folders.push(join(dotGemini, "tmp", shortName, "chats"));
  folders.push(join(dotGemini, "tmp", geminiProjectHash(projectRoot), "chats"));
  return folders.filter((folder, index) => folders.indexOf(folder) === index && existsSync(folder));
}

/** Gemini's hash of a project folder (the `projectHash` in session files). */
export function geminiProjectHash(projectRoot: string): string {
  return createHash("sha256").update(projectRoot).digest("hex");
}

function projectShortName(dotGemini: string, projectRoot: string): string | null {
  const file = join(dotGemini, "projects.json");
  if (!existsSync(file)) return null;
  try {
    const data = JSON.parse(readFileSync(file, "utf8")) as { projects?: Record<string, unknown> };
    const name = data.projects?.[projectRoot];
    return typeof name === "string" ? name : null;
  } catch {
    return null;
  }
}

/** Every project folder Gemini has a short name for (`projects.json`), sorted. */
export function geminiProjectFolders(dotGemini: string): string[] {
  const file = join(dotGemini, "projects.json");
  if (!existsSync(file)) return [];
  try {
    const data = JSON.parse(readFileSync(file, "utf8")) as { projects?: Record<string, unknown> };
    return Object.keys(data.projects ?? {}).sort();
  } catch {
    return [];
  }
}

/** This project's Gemini sessions, oldest first (the order of Gemini's `--resume <index>`). */
export function listGeminiSessions(dotGemini: string, projectRoot: string): GeminiSession[] {
  const expectedHash = geminiProjectHash(projectRoot);
  const byId = new Map<string, Array<{ file: string; parsed: ParsedSessionFile }>>();
  for (const folder of chatFolders(dotGemini, projectRoot)) {
    for (const name of readdirSync(folder)) {
      if (!/^session-.*\.jsonl?$/.test(name)) continue;
      const file = join(folder, name);
      const parsed = parseSessionFile(file);
      if (!parsed || (parsed.kind && parsed.kind !== "main")) continue;
      if (parsed.projectHash && parsed.projectHash !== expectedHash) continue;
      const group = byId.get(parsed.sessionId) ?? [];
      group.push({ file, parsed });
      byId.set(parsed.sessionId, group);
    }
  }
  const sessions = [...byId.values()].map((group) => sessionFromFiles(group));
  return sessions.sort(
    (a, b) => a.startTime.localeCompare(b.startTime) || a.sessionId.localeCompare(b.sessionId),
  );
}

function sessionFromFiles(group: Array<{ file: string; parsed: ParsedSessionFile }>): GeminiSession {
  const turnsOf = (parsed: ParsedSessionFile) => parsed.messages.filter((m) => m.type === "user").length;
  const [main] = [...group].sort(
    (a, b) =>
      turnsOf(b.parsed) - turnsOf(a.parsed) ||
      b.parsed.messages.length - a.parsed.messages.length ||
      statSize(b.file) - statSize(a.file),
  );
  const parsed = main!.parsed;
  const prompts = parsed.messages.filter((m) => m.type === "user");
  return {
    sessionId: parsed.sessionId,
    file: main!.file,
    files: group.map((entry) => entry.file).sort(),
    startTime: group.map((entry) => entry.parsed.startTime).sort()[0] ?? parsed.startTime,
    lastUpdated:
      group
        .map((entry) => entry.parsed.lastUpdated)
        .sort()
        .at(-1) ?? parsed.lastUpdated,
    turns: prompts.length,
    messages: parsed.messages.length,
    firstPrompt: prompts[0]?.text ?? null,
    lastPrompt: prompts.at(-1)?.text ?? null,
    summary: parsed.summary,
  };
}

function statSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/**
 * Replays one session file: message lines are added (or replaced, by id), a `$set` of `messages`
 * replaces the list (Gemini rewinds the history that way after a failed turn), other `$set` keys
 * update the header. Also reads the older single-JSON `.json` format. Null when unreadable.
 */
export function parseSessionFile(file: string): ParsedSessionFile | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return null;
  }
  if (file.endsWith(".json")) return parseWholeJson(text);
  const lines = text.split("\n").filter((line) => line.trim());
  const header = parseLine(lines[0]);
  if (!header || typeof header.sessionId !== "string") return null;
  const session: ParsedSessionFile = {
    sessionId: header.sessionId,
    projectHash: stringOrNull(header.projectHash),
    startTime: stringOrNull(header.startTime) ?? "",
    lastUpdated: stringOrNull(header.lastUpdated) ?? stringOrNull(header.startTime) ?? "",
    kind: stringOrNull(header.kind),
    summary: stringOrNull(header.summary),
    messages: [],
  };
  let records: Array<Record<string, unknown>> = [];
  for (const line of lines.slice(1)) {
    const record = parseLine(line);
    if (!record) continue;
    const update = record.$set as Record<string, unknown> | undefined;
    if (update && typeof update === "object") {
      if (Array.isArray(update.messages)) records = update.messages.filter(isRecord);
      if (typeof update.lastUpdated === "string") session.lastUpdated = update.lastUpdated;
      if (typeof update.summary === "string") session.summary = update.summary;
      continue;
    }
    if (typeof record.id === "string" && typeof record.type === "string") {
      const at = records.findIndex((existing) => existing.id === record.id);
      if (at === -1) records.push(record);
      else records[at] = record;
    }
  }
  session.messages = records.map(toMessage).filter((message) => !isSetupMessage(message));
  return session;
}

function parseWholeJson(text: string): ParsedSessionFile | null {
  try {
    const data = JSON.parse(text) as Record<string, unknown>;
    if (typeof data.sessionId !== "string") return null;
    const messages = Array.isArray(data.messages) ? data.messages.filter(isRecord) : [];
    return {
      sessionId: data.sessionId,
      projectHash: stringOrNull(data.projectHash),
      startTime: stringOrNull(data.startTime) ?? "",
      lastUpdated: stringOrNull(data.lastUpdated) ?? "",
      kind: stringOrNull(data.kind),
      summary: stringOrNull(data.summary),
      messages: messages.map(toMessage).filter((message) => !isSetupMessage(message)),
    };
  } catch {
    return null;
  }
}

function toMessage(record: Record<string, unknown>): SessionMessage {
  return {
    type: String(record.type),
    text: contentText(record.content),
    timestamp: stringOrNull(record.timestamp),
  };
}

/** Message content is a string (Gemini's answers) or a list of parts `{text}` (the user's). */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (isRecord(part) && typeof part.text === "string" ? part.text : ""))
      .filter(Boolean)
      .join("\n");
  }
  return "";
}

/** Gemini's first user message describes the workspace; it is not a prompt. */
function isSetupMessage(message: SessionMessage): boolean {
  return message.type === "user" && message.text.trimStart().startsWith("<session_context>");
}

function parseLine(line: string | undefined): Record<string, unknown> | null {
  if (!line) return null;
  try {
    const value = JSON.parse(line) as unknown;
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringOrNull(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}
