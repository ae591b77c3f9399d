import { readFileSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import {
  type CapturedEvent,
  parseHookInput,
  parseJsonl,
  type Run,
  RunSchema,
  readCapturedEvents as readCapturedEventsFile,
  readJsonlFile,
  runFromHookEvents,
  runFromStreamJson,
} from "@evals/core";

/** A stored run that cannot be read: which file, and what is wrong with it. */
export class StoredRunError extends Error {
  override readonly name = "StoredRunError";
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`${file}: ${message}`);
  }
}

export interface StoredRun {
  run: Run;
  /** The file the run was read from. */
  file: string;
  /** How it was stored. */
  format: "run-json" | "cassette" | "stream-json" | "captured-events" | "hook-inputs";
}

export interface LoadStoredRunOptions {
  /**
   * The prompts of the run, for stream-json (which does not echo `-p` prompts) when no captured
   * UserPromptSubmit event is there to tell them.
   */
  prompts?: string[];
}

/**
 * Reads a stored run, whatever stored it:
 * - a run folder (test-output/<run-id>): its run.json (a serialized Run) when present, else its
 *   stream.jsonl (stream-json), else its events.jsonl (captured hook events);
 * - a .json file: a Run, or a cassette / AgentRunResult whose `run` (or `result.run`) is one;
 * - a .jsonl file: stream-json, captured events, or hook inputs (one per line, or `{input}` lines).
 */
export async function loadStoredRun(path: string, options: LoadStoredRunOptions = {}): Promise<StoredRun> {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(path).isDirectory();
  } catch {
    throw new StoredRunError(path, "no such file or folder");
  }
  if (isDirectory) return loadRunFolder(path, options);
  if (path.endsWith(".jsonl")) {
    // test-output/<run-id>/stream.jsonl: the folder names the run.
    const name = basename(path, ".jsonl");
    const runId = ["stream", "events", "hooks"].includes(name) ? basename(dirname(resolve(path))) : name;
    return loadJsonlRun(path, options, runId);
  }
  return loadJsonRun(path);
}

async function loadRunFolder(dir: string, options: LoadStoredRunOptions): Promise<StoredRun> {
  const runId = basename(dir);
  const file = (name: string) => join(dir, name);
  if (exists(file("run.json"))) return loadJsonRun(file("run.json"));
  const events = exists(file("events.jsonl"))
    ? await readCapturedEvents(file("events.jsonl"), runId)
    : undefined;
  if (exists(file("stream.jsonl"))) {
    const prompts = events ? promptsOf(events.map((line) => line.event)) : [];
    const lines = await readJsonlFile(file("stream.jsonl"));
    const run = runFromStreamJson(lines, {
      prompts: prompts.length > 0 ? prompts : (options.prompts ?? []),
      runId,
    });
    return { run, file: file("stream.jsonl"), format: "stream-json" };
  }
  if (events) {
    const run = runFromHookEvents(
      events.map((line) => line.event),
      { runId, timestamps: events.map((line) => line.captured_at) },
    );
    return { run, file: file("events.jsonl"), format: "captured-events" };
  }
  throw new StoredRunError(dir, "not a run folder: found none of run.json, stream.jsonl, events.jsonl");
}

function exists(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Captured events of one run, in capture order (seq), validated line by line (both forms: the Node
 * hook's, and the shell hook's raw lines; a raw line whose input was not a hook input is no event).
 */
async function readCapturedEvents(file: string, runId?: string): Promise<CapturedEvent[]> {
  const lines = await readCapturedEventsFile(file);
  const ofRun = runId ? lines.filter((line) => line.run_id === runId) : [];
  return (ofRun.length > 0 ? ofRun : lines).sort((a, b) => a.seq - b.seq);
}

function promptsOf(events: { hook_event_name: string }[]): string[] {
  return events
    .filter((event) => event.hook_event_name === "UserPromptSubmit")
    .map((event) => String((event as { prompt?: unknown }).prompt ?? ""));
}

async function loadJsonlRun(file: string, options: LoadStoredRunOptions, runId: string): Promise<StoredRun> {
  const text = readFileSync(file, "utf8");
  const first = firstJsonLine(text, file);
  if (first && typeof first === "object" && "run_id" in first && "event" in first) {
    const events = await readCapturedEvents(file);
    return {
      run: runFromHookEvents(
        events.map((line) => line.event),
        { runId: events[0]?.run_id ?? runId, timestamps: events.map((line) => line.captured_at) },
      ),
      file,
      format: "captured-events",
    };
  }
  if (first && typeof first === "object" && ("hook_event_name" in first || "input" in first)) {
    const lines = parseJsonl<Record<string, unknown>>(text, file);
    const inputs = lines.map((line) => parseHookInput("hook_event_name" in line ? line : line.input));
    return { run: runFromHookEvents(inputs, { runId }), file, format: "hook-inputs" };
  }
  if (first && typeof first === "object" && "type" in first) {
    const lines = parseJsonl(text, file);
    return {
      run: runFromStreamJson(lines, { prompts: options.prompts ?? [], runId }),
      file,
      format: "stream-json",
    };
  }
  throw new StoredRunError(
    file,
    "not stream-json, captured events or hook inputs (line 1 has none of type, event, hook_event_name)",
  );
}

function firstJsonLine(text: string, file: string): unknown {
  const lines = text.split(/\r?\n/);
  const index = lines.findIndex((line) => line.trim() !== "");
  if (index < 0) throw new StoredRunError(file, "the file is empty");
  try {
    return JSON.parse(lines[index] as string);
  } catch (error) {
    throw new StoredRunError(`${file}:${index + 1}`, `invalid JSON: ${(error as Error).message}`);
  }
}

function loadJsonRun(file: string): StoredRun {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new StoredRunError(file, `invalid JSON: ${(error as Error).message}`);
  }
  const direct = RunSchema.safeParse(value);
  if (direct.success) return { run: direct.data, file, format: "run-json" };
  const record = (value && typeof value === "object" ? value : {}) as Record<string, unknown>;
  const nested = record.run ?? (record.result as Record<string, unknown> | undefined)?.run;
  if (nested !== undefined) {
    const parsed = RunSchema.safeParse(nested);
    if (parsed.success) return { run: parsed.data, file, format: "cassette" };
    const issue = parsed.error.issues[0];
    const prefix = record.run !== undefined ? "run" : "result.run";
    throw new StoredRunError(
      file,
      `${prefix}${issue?.path.length ? `.${issue.path.join(".")}` : ""} is not a valid Run: ${issue?.message}`,
    );
  }
  if ("events" in record || "version" in record) {
    const issue = direct.error.issues[0];
    throw new StoredRunError(
      file,
      `not a valid Run (field ${issue?.path.join(".") || "(root)"}): ${issue?.message}`,
    );
  }
  throw new StoredRunError(
    file,
    "not a Run, and no `run` or `result.run` field holds one (expected a run.json, a cassette or an AgentRunResult)",
  );
}
