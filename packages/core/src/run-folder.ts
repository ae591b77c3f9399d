import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { z } from "zod";
import { type AgentRunResult, AgentRunResultSchema } from "./agent-run.js";
import { writeFileAtomic } from "./atomic-write.js";
import type { CapturedEvent } from "./captured-event.js";
import { readCapturedEvents } from "./captured-events-file.js";
import { runFromHookEvents } from "./claude/hook-events.js";
import { type ClaudeOutputOptions, runFromClaudeOutput } from "./claude/output.js";
import { PermissionModeSchema } from "./claude/vocabulary.js";
import { RUN_FOLDER_VERSION } from "./format-version.js";
import { readJsonlLinesSync } from "./jsonl-lines.js";
import { JsonlLineError, readJsonlFile, withoutBom } from "./jsonl-reader.js";
import { isOpenCodeOutputLine, runFromOpenCodeOutput } from "./opencode/run.js";
import { createRedactor } from "./redact.js";
import { type Run, type RunNote, RunSchema } from "./run.js";
import { RUN_FOLDER_FILES } from "./run-folder-files.js";
import { assertRunId } from "./run-id.js";

/** The files a run can be read from (the hook's own logs alone do not make a run). */
const RUN_FILES = [
  RUN_FOLDER_FILES.manifest,
  RUN_FOLDER_FILES.result,
  RUN_FOLDER_FILES.run,
  RUN_FOLDER_FILES.stream,
  RUN_FOLDER_FILES.events,
];

/** The options the agent ran with that grading depends on (approval-gate reads the first three). */
export const RunFolderAgentSchema = z.looseObject({
  permissionMode: PermissionModeSchema.optional(),
  allowedTools: z.array(z.string()).optional(),
  disallowedTools: z.array(z.string()).optional(),
  model: z.string().optional(),
  maxTurns: z.number().optional(),
  appendSystemPrompt: z.string().optional(),
  /** The `-p` prompt, which stream-json does not echo (a multi-turn run's stream has its prompts). */
  prompts: z.array(z.string()).optional(),
  /** The agent CLI that ran: "claude-code" when absent; "opencode" for @evals/opencode's runs. */
  cli: z.string().optional(),
});
export type RunFolderAgent = z.infer<typeof RunFolderAgentSchema>;

/** One scorer's verdict on the run, as the harness gave it. */
export const RunFolderScoreSchema = z.object({
  scorer: z.string(),
  score: z.number(),
  passed: z.boolean(),
  threshold: z.number().optional(),
});

/** The case the harness ran, and how it graded the run: what `evals grade` needs to do it again. */
export const RunFolderCaseSchema = z.object({
  suite: z.string(),
  id: z.string(),
  name: z.string().optional(),
  /** 0-based trial number, and how many trials the case had. */
  trial: z.number().int().nonnegative(),
  trials: z.number().int().positive(),
  /** The case value itself (for an @evals/evaluators case: the case, as JSON). */
  value: z.unknown(),
  grading: z
    .object({
      /** describeEval's `threshold` option, as given. */
      threshold: z.unknown().optional(),
      /**
       * How the run was expected to end: the case's `outcome`, else describeEval's `outcome` option,
       * else "success" (an @evals/evaluators ExpectedOutcome: an outcome, "failure", "any", or a list).
       */
      outcome: z.union([z.string(), z.array(z.string())]).optional(),
      /** The scorers, in order, with the threshold each needed. */
      scorers: z.array(z.object({ name: z.string(), threshold: z.number().optional() })),
      /** The harness's verdict on this trial. */
      verdict: z.object({
        status: z.enum(["passed", "failed", "error"]),
        scores: z.array(RunFolderScoreSchema),
        error: z.string().optional(),
      }),
    })
    .optional(),
});
export type RunFolderCase = z.infer<typeof RunFolderCaseSchema>;

export const RunFolderManifestSchema = z.object({
  version: z.literal(RUN_FOLDER_VERSION, {
    error: (issue) =>
      `unsupported run folder version ${JSON.stringify(issue.input)}: this @evals/core reads version ${RUN_FOLDER_VERSION}`,
  }),
  run_id: z.string(),
  /** When the manifest was last written (ISO). */
  written_at: z.string(),
  agent: RunFolderAgentSchema.optional(),
  case: RunFolderCaseSchema.optional(),
});
export type RunFolderManifest = z.infer<typeof RunFolderManifestSchema>;

/** A run folder that cannot be read: which file, and what is wrong with it. */
export class RunFolderError extends Error {
  override readonly name = "RunFolderError";
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(`${file}: ${message}`);
  }
}

export interface WriteRunFolderInput {
  /** The run's result: written to result.json. */
  result?: AgentRunResult;
  agent?: RunFolderAgent;
  case?: RunFolderCase;
}

/**
 * Writes (or adds to) a run folder: result.json when a result is given, and the manifest, merged
 * with what it already held (runAgent writes the result and agent options, the harness then adds
 * the case and its verdict). Every file is written atomically, its secrets redacted (createRedactor).
 * Throws a RunIdError before writing anything when `runId` is not a safe run id.
 */
export function writeRunFolder(dir: string, runId: string, input: WriteRunFolderInput): RunFolderManifest {
  assertRunId(runId);
  // Secret-free whoever wrote it: the case record holds the case's agent.env, the result what the agent printed.
  const redacted = createRedactor().value(input);
  if (redacted.result) {
    writeFileAtomic(join(dir, RUN_FOLDER_FILES.result), `${JSON.stringify(redacted.result, null, 2)}\n`);
  }
  const previous = readManifest(dir);
  const manifest: RunFolderManifest = {
    version: RUN_FOLDER_VERSION,
    run_id: runId,
    written_at: new Date().toISOString(),
    ...(previous?.agent || redacted.agent ? { agent: { ...previous?.agent, ...redacted.agent } } : {}),
    ...((redacted.case ?? previous?.case) ? { case: redacted.case ?? previous?.case } : {}),
  };
  writeFileAtomic(join(dir, RUN_FOLDER_FILES.manifest), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/** What a run folder holds, read and checked. */
export interface RunFolder {
  dir: string;
  runId: string;
  /** The manifest, when the folder has one (folders written before it existed do not). */
  manifest?: RunFolderManifest;
  /** The stored AgentRunResult (fields beyond the schema, such as runAgent's `error`, are kept). */
  result?: AgentRunResult & Record<string, unknown>;
  /** The run: the stored result's (reconciled) run, else built from the stream, else the hook events. */
  run: Run;
  /** The file the run came from. */
  file: string;
  /** `opencode-json`: stream.jsonl holds OpenCode's `run --format json` lines (the manifest's `agent.cli`, or detected). */
  source: "result" | "run-json" | "stream-json" | "opencode-json" | "captured-events";
  /** Lines left out (a cut-off last line, bad lines of the capture): file and line, one each. */
  warnings: string[];
}

export interface ReadRunFolderOptions {
  /** Prompts for a stream-only folder when neither the manifest nor the hook events tell them. */
  prompts?: string[];
  /** For a run built from the hook events: mark the calls that never ran as denied (default true). */
  inferDenials?: boolean;
  /** A bad line of events.jsonl: "throw" (default), or "skip" it (passed to `onBadLine`, kept as a warning). */
  onError?: "throw" | "skip";
  onBadLine?: (error: JsonlLineError) => void;
  /** For a run built from stream.jsonl: keep at most this much of each tool output (see StreamJsonOptions). */
  maxOutputChars?: number;
}

/** Whether `dir` looks like a run folder (it has any of the files a run leaves). */
export function isRunFolder(dir: string): boolean {
  return RUN_FILES.some((name) => isFile(join(dir, name)));
}

/**
 * Reads a run folder. The run is the stored result's run when there is one (the harness reconciled
 * the stream and the hooks), else a serialized run.json, else stream.jsonl (prompts from the
 * manifest or the captured UserPromptSubmit events), else events.jsonl. A cut-off last line is left
 * out with a warning; anything else unreadable throws a RunFolderError or JsonlLineError naming the
 * file (and line). A run built from events.jsonl also notes, as notes of the run, the event lines
 * left out (`parse_error`), the raw lines that were no hook input and the hook's own problems
 * (hook-errors.log). This is the one reader of run folders: the hooks, grading, reports and the
 * viewer all read through it.
 */
export async function readRunFolder(dir: string, options: ReadRunFolderOptions = {}): Promise<RunFolder> {
  // "any" answers a run folder or throws.
  const folder = (await openRunFolder(dir, options, "any")) as RunFolder | RunFolderStream;
  if ("run" in folder) return folder;
  if (folder.source !== "stream-json") throw new Error(`${folder.file}: read as a stream`);
  const { readOptions, ...rest } = folder;
  return { ...rest, run: runFromClaudeOutput(folder.file, readOptions).run };
}

/**
 * A run folder whose run is not read yet, to be read into a sink while it is graded: Claude Code's
 * stream.jsonl (what readRunFolder reads it with: runFromClaudeOutput whole, claudeOutputInto into a
 * sink), or the stored result.json (runResultInto, one event at a time).
 */
export type RunFolderStream = RunFolderStreamBase &
  (
    | {
        /** The run is Claude Code's stream.jsonl (`file`). */
        source: "stream-json";
        /** The prompts, run id and maxOutputChars the stream is read with; a cut-off last line becomes a warning. */
        readOptions: ClaudeOutputOptions;
      }
    | {
        /** The run is the stored AgentRunResult's, result.json (`file`): read it with runResultInto. */
        source: "result";
      }
  );

/** What a RunFolderStream tells before its run is read. */
export type RunFolderStreamBase = Omit<RunFolder, "run" | "source" | "result">;

/**
 * A run folder as readRunFolder reads it, up to its run, when that run can be read into a sink
 * while it is graded: the stored result.json, or Claude Code's stream.jsonl when no result.json or
 * run.json holds the run. A long run can then be graded in bounded memory. Undefined for a run
 * kept in any other form (its run.json or OpenCode stream left unread).
 */
export async function readRunFolderStream(
  dir: string,
  options: ReadRunFolderOptions = {},
): Promise<RunFolderStream | undefined> {
  const folder = await openRunFolder(dir, options, "stream");
  return folder && !("run" in folder) ? folder : undefined;
}

/**
 * readRunFolder, but a run in Claude Code's stream.jsonl is left to be read; with `want` "stream",
 * a run in result.json too, and undefined for a run in any other file, before reading it.
 */
async function openRunFolder(
  dir: string,
  options: ReadRunFolderOptions,
  want: "any" | "stream",
): Promise<RunFolder | RunFolderStream | undefined> {
  const file = (name: string) => join(dir, name);
  const warnings: string[] = [];
  const onTruncatedLine = (error: JsonlLineError) => warnings.push(error.message);
  const manifest = readManifest(dir);
  const runId = manifest?.run_id ?? basename(dir);
  const base = { dir, runId, ...(manifest ? { manifest } : {}), warnings };

  if (isFile(file(RUN_FOLDER_FILES.result))) {
    if (want === "stream") return { ...base, file: file(RUN_FOLDER_FILES.result), source: "result" };
    const result = readResult(file(RUN_FOLDER_FILES.result));
    return { ...base, result, run: result.run, file: file(RUN_FOLDER_FILES.result), source: "result" };
  }
  if (isFile(file(RUN_FOLDER_FILES.run))) {
    if (want === "stream") return undefined;
    const value = readJson(file(RUN_FOLDER_FILES.run));
    const run = parseWith(RunSchema, value, file(RUN_FOLDER_FILES.run), "not a valid Run");
    return { ...base, run, file: file(RUN_FOLDER_FILES.run), source: "run-json" };
  }
  if (want === "stream" && !isFile(file(RUN_FOLDER_FILES.stream))) return undefined;
  // Lines of events.jsonl left out (skipped bad lines, a cut-off last line): notes of a run built from them.
  const skippedEvents: RunNote[] = [];
  const onSkippedEvent = (error: JsonlLineError) => {
    warnings.push(error.message);
    skippedEvents.push({ kind: "parse_error", message: error.message });
  };
  const badInputNotes: RunNote[] = [];
  const captured = isFile(file(RUN_FOLDER_FILES.events))
    ? ofRun(
        await readCapturedEvents(file(RUN_FOLDER_FILES.events), {
          onTruncatedLine: onSkippedEvent,
          ...(options.onError === "skip"
            ? {
                onError: "skip" as const,
                onBadLine: (error: JsonlLineError) => {
                  onSkippedEvent(error);
                  options.onBadLine?.(error);
                },
              }
            : {}),
          onBadInput: (problem) =>
            badInputNotes.push({
              kind: "other",
              message: `capture hook bad_input: ${problem.message} (${problem.file}:${problem.line})`,
            }),
        }),
        runId,
        manifest !== undefined,
      )
    : undefined;
  const events = captured?.lines;
  const id = captured?.runId ?? runId;
  const found = { ...base, runId: id };
  if (isFile(file(RUN_FOLDER_FILES.stream))) {
    const prompted = events ? promptsOf(events) : [];
    const prompts = manifest?.agent?.prompts ?? (prompted.length > 0 ? prompted : (options.prompts ?? []));
    const stream = file(RUN_FOLDER_FILES.stream);
    if (manifest?.agent?.cli === "opencode" || isOpenCodeOutput(stream)) {
      if (want === "stream") return undefined;
      const run = runFromOpenCodeOutput(stream, { prompts, runId: id, onTruncatedLine });
      return { ...found, run, file: stream, source: "opencode-json" };
    }
    const readOptions: ClaudeOutputOptions = {
      prompts,
      runId: id,
      onTruncatedLine,
      ...(options.maxOutputChars === undefined ? {} : { maxOutputChars: options.maxOutputChars }),
    };
    return { ...found, file: stream, source: "stream-json", readOptions };
  }
  if (events) {
    const built = runFromHookEvents(
      events.map((line) => line.event),
      {
        runId: id,
        timestamps: events.map((line) => line.captured_at),
        ...(options.inferDenials === undefined ? {} : { inferDenials: options.inferDenials }),
      },
    );
    const notes = [
      ...skippedEvents,
      ...badInputNotes,
      ...(await hookErrorNotes(file(RUN_FOLDER_FILES.hookErrors))),
    ];
    const run = notes.length > 0 ? { ...built, notes: [...built.notes, ...notes] } : built;
    return { ...found, run, file: file(RUN_FOLDER_FILES.events), source: "captured-events" };
  }
  throw new RunFolderError(
    dir,
    `not a run folder: found none of ${[RUN_FOLDER_FILES.result, RUN_FOLDER_FILES.run, RUN_FOLDER_FILES.stream, RUN_FOLDER_FILES.events].join(", ")}`,
  );
}

/** The folder's manifest, undefined when it has none; throws a RunFolderError when it is invalid. */
export function readManifest(dir: string): RunFolderManifest | undefined {
  const path = join(dir, RUN_FOLDER_FILES.manifest);
  if (!existsSync(path)) return undefined;
  return parseWith(RunFolderManifestSchema, readJson(path), path, "not a valid run folder manifest");
}

/**
 * The folder's stored AgentRunResult (result.json), undefined when it has none; throws a
 * RunFolderError naming the file and field when it is invalid.
 */
export function readRunFolderResult(dir: string): (AgentRunResult & Record<string, unknown>) | undefined {
  const path = join(dir, RUN_FOLDER_FILES.result);
  return isFile(path) ? readResult(path) : undefined;
}

function readResult(path: string): AgentRunResult & Record<string, unknown> {
  const value = readJson(path);
  const parsed = parseWith(AgentRunResultSchema, value, path, "not a valid AgentRunResult");
  // Fields the schema does not list (runAgent's error, command, timings) are kept for the reader.
  return { ...(value as Record<string, unknown>), ...parsed };
}

/**
 * The captured events of one run, in capture order (seq; ties keep file order), and its run id: the
 * folder's, or, when no manifest names it and no line carries it (a folder renamed or copied), the
 * id the hook was given.
 */
function ofRun(
  lines: CapturedEvent[],
  runId: string,
  named: boolean,
): { lines: CapturedEvent[]; runId: string } {
  // readCapturedEvents has put them in seq order already.
  const mine = lines.filter((line) => line.run_id === runId);
  if (mine.length > 0) return { lines: mine, runId };
  return { lines, runId: named ? runId : (lines[0]?.run_id ?? runId) };
}

/** What hook-errors.log needs to become a note (its full schema is @evals/hooks' HookErrorEntrySchema). */
const HookErrorLineSchema = z.looseObject({
  kind: z.string(),
  message: z.string(),
  hook_event_name: z.string().optional(),
});

/**
 * The capture hook's own problems (hook-errors.log) as notes of the run: "capture hook bad_input
 * (PreToolUse): ...". Unreadable lines are skipped: the log only explains, it never decides.
 */
export async function hookErrorNotes(path: string): Promise<RunNote[]> {
  if (!isFile(path)) return [];
  const entries = await readJsonlFile(path, {
    schema: HookErrorLineSchema,
    onError: "skip",
    onTruncatedLine: () => {},
  });
  return entries.map((entry) => ({
    kind: "other",
    message: `capture hook ${entry.kind}${entry.hook_event_name ? ` (${entry.hook_event_name})` : ""}: ${entry.message}`,
  }));
}

function promptsOf(events: CapturedEvent[]): string[] {
  return events
    .filter((line) => line.event.hook_event_name === "UserPromptSubmit")
    .map((line) => String((line.event as { prompt?: unknown }).prompt ?? ""));
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(withoutBom(readFileSync(path, "utf8")));
  } catch (error) {
    throw new RunFolderError(path, `not valid JSON: ${(error as Error).message}`);
  }
}

function parseWith<T>(schema: z.ZodType<T>, value: unknown, path: string, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new RunFolderError(
    `${path} (field ${issue?.path.map(String).join(".") || "(root)"})`,
    `${what}: ${issue?.message ?? "invalid"}`,
  );
}

/** Whether a stream file's first line is OpenCode's (`opencode run --format json`), not Claude Code's. */
function isOpenCodeOutput(path: string): boolean {
  try {
    // The first line alone (the file may be far larger than a string can hold).
    for (const record of readJsonlLinesSync(path, { onTruncatedLine: () => {} }))
      return isOpenCodeOutputLine(record.value);
    return false;
  } catch (error) {
    // A line too long to read is reported by the reader of the stream, with its line number.
    if (error instanceof JsonlLineError && error.line === 1 && !error.reason.startsWith("invalid JSON"))
      throw error;
    return false;
  }
}
