import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  type Stats,
  statSync,
} from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import {
  type AgentRunResult,
  AgentRunResultSchema,
  type ClaudeOutputFormat,
  type ClaudeOutputOptions,
  claudeOutputInto,
  isOpenCodeOutputLine,
  type JsonlLineError,
  parseClaudeOutput,
  parseHookInput,
  parseOpenCodeOutput,
  RESULT_ONLY_NOTE,
  type ReadRunFolderOptions,
  RUNS_FOLDER,
  type Run,
  RunFolderError,
  type RunFolderManifest,
  type RunResultRead,
  RunSchema,
  type RunSink,
  readCapturedEvents,
  readJsonlLinesSync,
  readRunFolder,
  readRunFolderStream,
  runFromClaudeOutput,
  runFromHookEvents,
  runResultInto,
  withoutBom,
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
  format:
    | "run-result"
    | "run-json"
    | "cassette"
    | "stream-json"
    | "opencode-json"
    | "agent-jsonl"
    | "json-messages"
    | "captured-events"
    | "hook-inputs";
  /** The stored AgentRunResult (exit code, timed out, error), when the run folder has one. */
  result?: AgentRunResult & Record<string, unknown>;
  /** A run folder's manifest: the agent's options and, when the harness ran a case, the case. */
  manifest?: RunFolderManifest;
  /** What was left out while reading (a cut-off last line): file and line, one each. */
  warnings: string[];
}

/**
 * Reads the bare .jsonl output of an agent CLI loadStoredRun does not know itself, into a Run (the
 * `evals` CLI passes @evals/codex's for `codex exec --json`, @evals/gemini-cli's for `gemini
 * --output-format stream-json`).
 */
export interface AgentOutputReader {
  /** The agent, e.g. "codex". */
  agent: string;
  /** The Run of the file's text (`runId` from the file or its folder, `prompts` from the case). */
  read(
    text: string,
    file: string,
    options: { runId: string; prompts?: string[]; onTruncatedLine: (error: JsonlLineError) => void },
  ): Run;
}

export interface LoadStoredRunOptions {
  /**
   * The prompts of the run, for stream-json (which does not echo `-p` prompts) when no captured
   * UserPromptSubmit event is there to tell them.
   */
  prompts?: string[];
  /**
   * The agent whose output a bare .jsonl is: "opencode" reads it as `opencode run --format json`, an
   * AgentOutputReader with its own reader; without it the format is detected from the first line.
   * A file whose first line is another agent's format is a StoredRunError naming that agent.
   */
  agent?: "claude-code" | "opencode" | AgentOutputReader;
}

/**
 * Reads a stored run, whatever stored it:
 * - a run folder (test-output/<run-id>): through @evals/core's readRunFolder (its result.json, the
 *   run the harness graded, when present; else run.json, stream.jsonl, events.jsonl);
 * - a .json file: a Run, a stored AgentRunResult (a result.json: its exit code is graded too), a
 *   cassette whose `run` (or `result.run`) is one, or
 *   `claude --output-format json --verbose` output (a JSON array of stream messages);
 * - a .jsonl file: stream-json, captured events, or hook inputs (one per line, or `{input}` lines),
 *   or OpenCode's `opencode run --format json` (detected, or named by `options.agent`).
 * `claude --output-format json` without --verbose (the result only, no tool calls) is refused.
 */
export async function loadStoredRun(path: string, options: LoadStoredRunOptions = {}): Promise<StoredRun> {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(path).isDirectory();
  } catch {
    throw new StoredRunError(path, "no such file or folder");
  }
  if (isDirectory) return loadRunFolder(path, options);
  // test-output/<run-id>/stream.jsonl: the folder names the run.
  if (path.endsWith(".jsonl")) return loadJsonlRun(path, options, jsonlRunId(path));
  return loadJsonRun(path, options);
}

async function loadRunFolder(dir: string, options: LoadStoredRunOptions): Promise<StoredRun> {
  return readingFolder(async () => {
    const folder = await readRunFolder(dir, runFolderOptions(options));
    if (
      folder.source === "stream-json" &&
      folder.run.notes.some((note) => note.message === RESULT_ONLY_NOTE)
    ) {
      throw resultOnly(folder.file);
    }
    return {
      run: folder.run,
      file: folder.file,
      format: folder.source === "result" ? "run-result" : folder.source,
      ...(folder.result ? { result: folder.result } : {}),
      ...(folder.manifest ? { manifest: folder.manifest } : {}),
      warnings: folder.warnings,
    };
  });
}

/** How grading reads a run folder (whole, or while it is graded). */
function runFolderOptions(options: LoadStoredRunOptions): ReadRunFolderOptions {
  return {
    ...(options.prompts ? { prompts: options.prompts } : {}),
    maxOutputChars: MAX_GRADED_OUTPUT_CHARS,
  };
}

/** Reads a run folder; what is wrong with one of its files is a StoredRunError naming the file. */
async function readingFolder<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw storedRunError(error);
  }
}

/** `read()`, a RunFolderError it throws made a StoredRunError naming the file. */
function storedRunErrors<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw storedRunError(error);
  }
}

function storedRunError(error: unknown): unknown {
  return error instanceof RunFolderError
    ? new StoredRunError(error.file, error.message.slice(error.file.length + 2))
    : error;
}

/** The message for `claude --output-format json` output, which holds no tool calls to grade. */
function resultOnly(file: string): StoredRunError {
  return new StoredRunError(
    file,
    "this is `claude --output-format json` output: the final result only, without the tool calls, so the run cannot be graded; capture it with --output-format stream-json --verbose (or json --verbose)",
  );
}

/** Claude Code's own output (stream-json, or json --verbose): a run, or a clear refusal. */
function claudeOutputRun(
  text: string,
  file: string,
  options: LoadStoredRunOptions,
  runId: string,
  warnings: string[],
): StoredRun {
  const output = parseClaudeOutput(text, file, {
    prompts: options.prompts ?? [],
    runId,
    onTruncatedLine: (error: JsonlLineError) => warnings.push(error.message),
  });
  if (output.format === "json-result") throw resultOnly(file);
  const format: Exclude<ClaudeOutputFormat, "json-result"> = output.format;
  return { run: output.run, file, format, warnings };
}

/** What a bare .jsonl holds, from its first line (and the --agent given). */
type JsonlKind = "agent" | "opencode" | "json-messages" | "captured-events" | "hook-inputs" | "claude-output";

function jsonlKind(file: string, options: LoadStoredRunOptions): JsonlKind {
  const first = firstJsonLine(file);
  assertAgentFormat(file, first, options.agent);
  if (typeof options.agent === "object") return "agent";
  if (options.agent === "opencode" || (options.agent === undefined && isOpenCodeOutputLine(first)))
    return "opencode";
  if (Array.isArray(first)) return "json-messages";
  if (first && typeof first === "object" && "run_id" in first && "event" in first) return "captured-events";
  if (first && typeof first === "object" && ("hook_event_name" in first || "input" in first))
    return "hook-inputs";
  if (first && typeof first === "object" && "type" in first) return "claude-output";
  throw new StoredRunError(
    file,
    "not stream-json, captured events or hook inputs (line 1 has none of type, event, hook_event_name)",
  );
}

/** What each agent's bare .jsonl is, by the name `evals grade --agent` takes. */
const AGENT_OUTPUTS: Record<string, string> = {
  "claude-code": "Claude Code's stream-json",
  opencode: "OpenCode's `opencode run --format json` output",
  codex: "Codex's `codex exec --json` output",
  gemini: "Gemini CLI's `--output-format stream-json` output",
};

/**
 * Whose output a bare .jsonl is, from the line types only that agent writes (its first line:
 * `system` or a hook line for Claude Code, `thread.started` for Codex, `init` for Gemini CLI).
 */
function outputAgentOf(first: unknown): string | undefined {
  if (isOpenCodeOutputLine(first)) return "opencode";
  if (!first || typeof first !== "object") return undefined;
  const line = first as Record<string, unknown>;
  if (("run_id" in line && "event" in line) || "hook_event_name" in line) return "claude-code";
  const type = line.type;
  if (typeof type !== "string") return undefined;
  if (/^(thread|turn|item)\./.test(type)) return "codex";
  if (["init", "message", "tool_use", "tool_result"].includes(type)) return "gemini";
  if (type === "result") return "subtype" in line ? "claude-code" : "stats" in line ? "gemini" : undefined;
  if (["system", "assistant", "user", "stream_event"].includes(type)) return "claude-code";
  return undefined;
}

/**
 * Refuses a bare .jsonl in another agent's format than the one it is read as: each reader finds
 * nothing it knows in another agent's lines, and the run would be graded as 0 tool calls.
 */
function assertAgentFormat(file: string, first: unknown, agent: LoadStoredRunOptions["agent"]): void {
  const found = outputAgentOf(first);
  if (found === undefined) return;
  const wanted = typeof agent === "object" ? agent.agent : agent;
  // Without --agent, Claude Code's and OpenCode's formats are detected; the others must be named.
  if (wanted === undefined ? found === "claude-code" || found === "opencode" : found === wanted) return;
  const readAs = wanted === undefined ? "" : `, not ${AGENT_OUTPUTS[wanted] ?? `${wanted}'s output`}`;
  throw new StoredRunError(file, `this is ${AGENT_OUTPUTS[found]}${readAs}: grade it with --agent ${found}`);
}

/** The run id of a bare .jsonl: its folder's name for test-output/<run-id>/stream.jsonl, else its own. */
function jsonlRunId(path: string): string {
  const name = basename(path, ".jsonl");
  return ["stream", "events", "hooks"].includes(name) ? basename(dirname(resolve(path))) : name;
}

async function loadJsonlRun(file: string, options: LoadStoredRunOptions, runId: string): Promise<StoredRun> {
  assertRegularFile(file);
  const warnings: string[] = [];
  const onTruncatedLine = (error: JsonlLineError) => warnings.push(error.message);
  const kind = jsonlKind(file, options);
  if (kind === "agent" && typeof options.agent === "object") {
    // Another agent's output is read whole by its reader (the agent's own line shapes).
    const run = options.agent.read(readStoredText(file), file, {
      runId,
      ...(options.prompts ? { prompts: options.prompts } : {}),
      onTruncatedLine,
    });
    return { run, file, format: "agent-jsonl", warnings };
  }
  if (kind === "opencode") {
    const run = parseOpenCodeOutput(readStoredText(file), file, {
      runId,
      ...(options.prompts ? { prompts: options.prompts } : {}),
      onTruncatedLine,
    });
    return { run, file, format: "opencode-json", warnings };
  }
  if (kind === "json-messages") return claudeOutputRun(readStoredText(file), file, options, runId, warnings);
  if (kind === "captured-events") {
    // Both forms of events.jsonl (the Node hook's lines and the shell hook's raw ones), in seq order.
    const events = await readCapturedEvents(file, { onTruncatedLine });
    return {
      run: runFromHookEvents(
        events.map((line) => line.event),
        { runId: events[0]?.run_id ?? runId, timestamps: events.map((line) => line.captured_at) },
      ),
      file,
      format: "captured-events",
      warnings,
    };
  }
  if (kind === "hook-inputs") {
    const inputs = function* () {
      for (const { value, line } of readJsonlLinesSync(file, { onTruncatedLine })) {
        const record = value as Record<string, unknown>;
        try {
          yield parseHookInput("hook_event_name" in record ? record : record.input);
        } catch (error) {
          throw new StoredRunError(`${file}:${line}`, `not a hook input: ${(error as Error).message}`);
        }
      }
    };
    return { run: runFromHookEvents(inputs(), { runId }), file, format: "hook-inputs", warnings };
  }
  // Read line by line: memory grows with what the run holds, not with the file's bytes.
  const output = runFromClaudeOutput(file, claudeReadOptions(options, runId, onTruncatedLine));
  if (output.format === "json-result") throw resultOnly(file);
  return { run: output.run, file, format: output.format, warnings };
}

/** How a Claude Code output file is read for grading, whole or while it is graded. */
function claudeReadOptions(
  options: LoadStoredRunOptions,
  runId: string,
  onTruncatedLine: (error: JsonlLineError) => void,
): ClaudeOutputOptions {
  return {
    prompts: options.prompts ?? [],
    runId,
    onTruncatedLine,
    maxOutputChars: MAX_GRADED_OUTPUT_CHARS,
  };
}

/**
 * A stored run to be graded while it is read (see gradeWhileReading): a Claude Code stream-json
 * file, bare or a run folder's, or a run folder's stored result.json.
 */
export interface StreamedRunSource {
  file: string;
  /** How the run is stored: Claude Code's stream-json, or the AgentRunResult the harness kept. */
  format: "stream-json" | "run-result";
  /**
   * Writes the run into `sink` event by event (a file holding only a result throws StoredRunError,
   * as does a result.json that cannot be read); for a result.json, what else it holds (exit code,
   * timeout: the outcome is judged on them) and whether it came in the order a Run is written.
   */
  read(sink: RunSink): RunResultRead | undefined;
  /** What was left out while reading (a cut-off last line), once read. */
  warnings: string[];
  /** A run folder's manifest: the agent's options and, when the harness ran a case, the case. */
  manifest?: RunFolderManifest;
}

/**
 * The stored run at `path` as a source to grade while it is read, when it is a Claude Code
 * stream-json file (the one form a very long run comes in), a run folder whose run is in its
 * result.json or stream.jsonl (see @evals/core's readRunFolderStream), or such a result.json given
 * alone (see isStoredResult); undefined for every other form (read those with loadStoredRun).
 * Reading it throws what loadStoredRun would.
 */
export async function streamedRunSource(
  path: string,
  options: LoadStoredRunOptions = {},
): Promise<StreamedRunSource | undefined> {
  let stat: Stats;
  try {
    stat = statSync(path);
  } catch {
    return undefined;
  }
  if (stat.isDirectory()) {
    const folder = await readingFolder(() => readRunFolderStream(path, runFolderOptions(options)));
    if (folder?.source === "result") return resultSource(folder.file, folder.warnings, folder.manifest);
    return folder && streamSource(folder.file, folder.readOptions, folder.warnings, folder.manifest);
  }
  if (stat.isFile() && isStoredResult(path, stat))
    return resultSource(path, [], undefined, stat.size <= MAX_STORED_RUN_BYTES);
  if (!path.endsWith(".jsonl") || !stat.isFile() || jsonlKind(path, options) !== "claude-output")
    return undefined;
  const warnings: string[] = [];
  const readOptions = claudeReadOptions(options, jsonlRunId(path), (error) => warnings.push(error.message));
  return streamSource(path, readOptions, warnings);
}

function streamSource(
  file: string,
  readOptions: ClaudeOutputOptions,
  warnings: string[],
  manifest?: RunFolderManifest,
): StreamedRunSource {
  return {
    file,
    format: "stream-json",
    warnings,
    ...(manifest ? { manifest } : {}),
    read(sink) {
      if (claudeOutputInto(file, sink, readOptions) === "json-result") throw resultOnly(file);
      return undefined;
    },
  };
}

/**
 * A run folder's result.json, read one event at a time (@evals/core's runResultInto). One given
 * alone that a whole read can hold (`wholeReadable`) and that is no valid result (a cassette whose
 * first field is `run_id`) throws ReadWholeInstead: loadStoredRun reads what else it may be.
 */
function resultSource(
  file: string,
  warnings: string[],
  manifest?: RunFolderManifest,
  wholeReadable = false,
): StreamedRunSource {
  return {
    file,
    format: "run-result",
    warnings,
    ...(manifest ? { manifest } : {}),
    read: (sink) => {
      try {
        return storedRunErrors(() => runResultInto(file, sink));
      } catch (error) {
        if (wholeReadable && error instanceof StoredRunError)
          throw new ReadWholeInstead(error.file, error.message.slice(error.file.length + 2));
        throw error;
      }
    },
  };
}

/**
 * What a .json given alone that is no valid stored result throws while read: a StoredRunError, on
 * which gradeWhileReading gives undefined (read it whole: it may be a cassette).
 */
export class ReadWholeInstead extends StoredRunError {}

/**
 * Whether a file given alone is a stored AgentRunResult (a run folder's result.json, moved or named
 * on its own): its first field is `run_id`, as runAgent and writeRunFolder write one. A .json object
 * too big to read whole can only be read so (reading it says what it lacks), unless its first field
 * is `version`: a Run, or a cassette or wire recording, is no result, and the whole read refuses its
 * size at once, as it does one that is no object (`claude --output-format json --verbose`'s array).
 * The extension is matched in any case (`RESULT.JSON`).
 */
function isStoredResult(file: string, stat: Stats): boolean {
  if (!file.toLowerCase().endsWith(".json")) return false;
  const head = Buffer.alloc(256);
  const fd = openSync(file, "r");
  let text: string;
  try {
    text = head.toString("utf8", 0, readSync(fd, head, 0, head.length, 0));
  } finally {
    closeSync(fd);
  }
  if (stat.size > MAX_STORED_RUN_BYTES)
    return /^(\uFEFF)?\s*\{/.test(text) && !/^(\uFEFF)?\s*\{\s*"version"\s*:/.test(text);
  return /^(\uFEFF)?\s*\{\s*"run_id"\s*:/.test(text);
}

/**
 * How much of each tool output a stream-json run keeps for grading: its first and last 32 KiB (the
 * rules read an output's failure markers, at its start or end), so memory grows with the run's
 * calls, not with the size of what they printed.
 */
const MAX_GRADED_OUTPUT_CHARS = 64 * 1024;

/** The largest stored run grade reads: a run's text must fit in one string (node's limit is 512 MiB). */
const MAX_STORED_RUN_BYTES = 256 * 1024 * 1024;

/** A stored run's text; a file too big to hold in memory is an unreadable input, not a crash. */
function readStoredText(file: string): string {
  const size = assertRegularFile(file).size;
  if (size > MAX_STORED_RUN_BYTES) {
    throw new StoredRunError(
      file,
      `${Math.round(size / 1024 / 1024)} MiB is more than a stored run holds (at most ${MAX_STORED_RUN_BYTES / 1024 / 1024} MiB)`,
    );
  }
  return withoutBom(readFileSync(file, "utf8"));
}

function assertRegularFile(file: string): Stats {
  const stat = statSync(file);
  if (!stat.isFile()) throw new StoredRunError(file, "not a regular file (a FIFO or device never ends)");
  return stat;
}

/** The file's first JSON line, read alone (a line too long to hold throws a JsonlLineError). */
function firstJsonLine(file: string): unknown {
  for (const record of readJsonlLinesSync(file, { onTruncatedLine: () => {} })) return record.value;
  throw new StoredRunError(file, "the file is empty");
}

async function loadJsonRun(file: string, options: LoadStoredRunOptions): Promise<StoredRun> {
  const text = readStoredText(file);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // One JSON value a line under another name (run.ndjson, a file without an extension): JSON lines.
    if (isJsonLines(text)) return loadJsonlRun(file, options, basename(file).replace(/\.[^.]*$/, ""));
    throw new StoredRunError(file, `invalid JSON: ${(error as Error).message}`);
  }
  const warnings: string[] = [];
  if ((value as { format?: unknown } | null)?.format === WIRE_RECORDING_FORMAT) {
    throw wireRecording(file, value as WireRecordingHead);
  }
  // claude --output-format json: an array of messages (--verbose) or the result object alone.
  if (Array.isArray(value)) {
    return claudeOutputRun(text, file, options, basename(file, ".json"), warnings);
  }
  if ((value as { type?: unknown } | null)?.type === "result") throw resultOnly(file);
  const direct = RunSchema.safeParse(value);
  if (direct.success) return { run: direct.data, file, format: "run-json", warnings };
  const record = (value && typeof value === "object" ? value : {}) as Record<string, unknown>;
  // A stored AgentRunResult (a run folder's result.json, given alone): its exit code and timeout are
  // part of the outcome, as when its folder is graded.
  const result = AgentRunResultSchema.safeParse(value);
  if (result.success)
    return {
      run: result.data.run,
      file,
      format: "run-result",
      result: { ...record, ...result.data },
      warnings,
    };
  // One with a result's exit code that is no valid result (a broken result.json) is refused, as in
  // its folder: read as a cassette, its exit code would be dropped unsaid.
  if ("exit_code" in record) {
    const issue = result.error.issues[0];
    throw new StoredRunError(
      file,
      `not a valid AgentRunResult (field ${issue?.path.join(".") || "(root)"}): ${issue?.message}`,
    );
  }
  const nested = record.run ?? (record.result as Record<string, unknown> | undefined)?.run;
  if (nested !== undefined) {
    const parsed = RunSchema.safeParse(nested);
    if (parsed.success) return { run: parsed.data, file, format: "cassette", warnings };
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

/** Whether `text` is JSON lines: its first line is a JSON value of its own and another line follows. */
function isJsonLines(text: string): boolean {
  const newline = text.indexOf("\n");
  if (newline < 0 || text.slice(newline + 1).trim() === "") return false;
  try {
    JSON.parse(text.slice(0, newline));
    return true;
  } catch {
    return false;
  }
}

/** The `format` of @evals/vcr's wire recordings (`*.recording.json`). */
const WIRE_RECORDING_FORMAT = "evals-vcr-recording";

interface WireRecordingHead {
  metadata?: { suite?: unknown; case_id?: unknown };
}

/**
 * A wire recording holds the model's side of a run (HTTP requests and responses), not the run: the
 * message says so and names the run folders to grade instead (a trial's run id starts with
 * `<suite>-<case id>-t<trial>-`), with the ones found in a test-output/ folder near the recording.
 */
function wireRecording(file: string, recording: WireRecordingHead): StoredRunError {
  const suite = typeof recording.metadata?.suite === "string" ? recording.metadata.suite : undefined;
  const caseId = typeof recording.metadata?.case_id === "string" ? recording.metadata.case_id : undefined;
  const what = caseId
    ? ` of case ${JSON.stringify(caseId)}${suite ? ` in suite ${JSON.stringify(suite)}` : ""}`
    : "";
  const prefix = suite && caseId ? `${suite}-${caseId}-t` : undefined;
  const found = prefix ? runFoldersNear(file, prefix) : [];
  const pattern = prefix ? `test-output/${prefix}<n>-<id>/` : "test-output/<run id>/";
  return new StoredRunError(
    file,
    [
      `this is a wire recording of @evals/vcr (the model's requests and responses${what}), not a run: it holds no tool calls to grade.`,
      `Grade the run of a trial that replayed it instead: its run folder, ${pattern}`,
      found.length > 0
        ? `(found: ${found.slice(0, 3).join(", ")}${found.length > 3 ? `, and ${found.length - 3} more` : ""}).`
        : "(none found here: run its suite to make one).",
    ].join(" "),
  );
}

/** Run folders whose name starts with `prefix` in test-output/ of the cwd or a folder above the file. */
function runFoldersNear(file: string, prefix: string): string[] {
  const roots = [process.cwd()];
  for (let dir = dirname(resolve(file)), up = 0; up < 4; up++, dir = dirname(dir)) roots.push(dir);
  for (const root of roots) {
    const outputs = join(root, RUNS_FOLDER);
    if (!existsSync(outputs)) continue;
    const names = readdirSync(outputs)
      .filter((name) => name.startsWith(prefix))
      .sort();
    if (names.length > 0) {
      const near = relative(process.cwd(), outputs);
      return names.map((name) => join(near.startsWith("..") ? outputs : near, name));
    }
  }
  return [];
}
