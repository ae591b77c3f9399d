import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type BadCapturedInput,
  type CapturedEvent,
  isRunFolder,
  type JsonlLineError,
  listToolCalls,
  type Run,
  readCapturedEvents,
  readJsonlFile,
  readRunFolder,
  runFolderPath,
  type ToolCallEntry,
  ToolCallEntrySchema,
  type ToolCallView,
  toolSequence,
} from "@evals/core";
import type { HookErrorEntry } from "./hook-errors.js";
import { EVENTS_FILE, HOOK_ERRORS_FILE, TOOL_CALLS_FILE } from "./paths.js";
import { HookErrorEntrySchema } from "./schemas.js";
import { toolCallEntry } from "./tool-call-entry.js";

/**
 * The capture's own files under `<root>/test-output/<run id>/` (events.jsonl, tool-calls.jsonl,
 * hook-errors.log), parsed. The run itself is read by @evals/core's readRunFolder, the one reader of
 * run folders (readStoredRun finds the folder by run id and reads it with it).
 */

export interface ReadOptions {
  /**
   * "throw" (default): a bad line throws a JsonlLineError naming file, line and field.
   * "skip": bad lines are left out and passed to `onBadLine`.
   */
  onError?: "throw" | "skip";
  onBadLine?: (error: JsonlLineError) => void;
  /**
   * A cut-off last line (the hook was killed mid-write) is left out either way, and passed here
   * (@evals/core's readRunFolder keeps it as a note of the run); without a handler, a process
   * warning names the file and line.
   */
  onTruncatedLine?: (error: JsonlLineError) => void;
}

export interface ReadEventsOptions extends ReadOptions {
  /**
   * Raw lines (written by the shell hook, which does not parse its input) whose input is not a
   * hook input. They are never events; @evals/core's readRunFolder turns them into notes.
   */
  onBadInput?: (problem: BadCapturedInput) => void;
}

/** The run folder exists but the hook never wrote to it, or it does not exist. */
export class CaptureNotFoundError extends Error {
  override readonly name = "CaptureNotFoundError";
  constructor(readonly file: string) {
    super(
      `No captured events at ${file}. The capture hook did not run for this run: check that claude got ` +
        "TEST_MODE=true and this TEST_RUN_ID in its environment, that the hooks are registered " +
        "(claude --settings <file from writeHookSettings>, or the plugin) and not skipped (--bare skips them), " +
        "and that EVALS_OUTPUT_DIR/CLAUDE_PROJECT_DIR point at the same root; see hook-errors.log if it exists.",
    );
  }
}

/**
 * Every line of `<runDir>/events.jsonl`, both forms (version 1 from the Node hook, raw version 2
 * from the shell hook), validated against @evals/core's CapturedEventSchema, nesting cut at
 * MAX_EVENT_DEPTH, in `seq` order (ties keep file order). See @evals/core readCapturedEvents.
 */
export async function readEvents(runDir: string, options: ReadEventsOptions = {}): Promise<CapturedEvent[]> {
  const file = join(runDir, EVENTS_FILE);
  if (!existsSync(file)) throw new CaptureNotFoundError(file);
  return readCapturedEvents(file, options);
}

/**
 * The seeds' ToolCallEntry view of the run's PreToolUse / PostToolUse / PostToolUseFailure events:
 * the lines of `<runDir>/tool-calls.jsonl` (file order) when the Node hook wrote every event, else
 * (the shell hook wrote raw lines and no tool-calls.jsonl) derived from events.jsonl, in seq order.
 */
export async function readToolCallEntries(
  runDir: string,
  options: ReadOptions = {},
): Promise<ToolCallEntry[]> {
  const events = join(runDir, EVENTS_FILE);
  if (existsSync(events) && (await hasRawLines(events))) {
    const entries: ToolCallEntry[] = [];
    for (const line of await readEvents(runDir, options)) {
      const entry = toolCallEntry(line);
      if (entry !== undefined && typeof entry !== "string") entries.push(entry);
    }
    return entries;
  }
  const file = join(runDir, TOOL_CALLS_FILE);
  if (!existsSync(file)) {
    if (existsSync(join(runDir, EVENTS_FILE))) return [];
    throw new CaptureNotFoundError(join(runDir, EVENTS_FILE));
  }
  return readJsonlFile(file, { ...options, schema: ToolCallEntrySchema });
}

/** Whether any line of events.jsonl is a raw (version 2) line. */
async function hasRawLines(file: string): Promise<boolean> {
  const text = await readFile(file, "utf8");
  return text.startsWith('{"version":2,') || text.includes('\n{"version":2,');
}

/** The hook's own problems for this run (`hook-errors.log`); empty when it had none. */
export async function readHookErrors(runDir: string, options: ReadOptions = {}): Promise<HookErrorEntry[]> {
  const file = join(runDir, HOOK_ERRORS_FILE);
  if (!existsSync(file)) return [];
  return readJsonlFile(file, { ...options, schema: HookErrorEntrySchema });
}

export interface RunLookupOptions extends Pick<ReadOptions, "onError" | "onBadLine"> {
  /**
   * Mark calls the hooks show never ran as `denied` (hooks never report a denial itself): one that
   * asked for permission, got no result, and after which its agent went on; one a PostToolBatch
   * answered without a PostToolUse. @evals/core's `inferPermissionDenials`. Default true.
   */
  inferDenials?: boolean;
  /** The output root. Default: EVALS_OUTPUT_DIR, else CLAUDE_PROJECT_DIR, else the cwd. */
  root?: string;
  /** Only this agent's calls ("main" or a subagent's agent_id). */
  agent?: string;
}

/**
 * The run of `testId` (its TEST_RUN_ID), read from its run folder by @evals/core's readRunFolder:
 * the reconciled run the harness stored (result.json) when there is one, else the CLI's stream, else
 * the capture hook's events alone (with the hook's own problems as notes). `testId` must be a safe
 * run id (a RunIdError says why not); it never names a path outside the root.
 */
export async function readStoredRun(testId: string, options: RunLookupOptions = {}): Promise<Run> {
  const dir = runFolderPath(testId, options.root);
  if (!isRunFolder(dir)) throw new CaptureNotFoundError(join(dir, EVENTS_FILE));
  const folder = await readRunFolder(dir, {
    ...(options.inferDenials === undefined ? {} : { inferDenials: options.inferDenials }),
    ...(options.onError === undefined ? {} : { onError: options.onError }),
    ...(options.onBadLine === undefined ? {} : { onBadLine: options.onBadLine }),
  });
  return folder.run;
}

/**
 * The tool calls of run `testId`, in order, each joined with its result and a status: ok, error,
 * denied (asked for permission and never ran) or incomplete (started and never finished).
 * `agent` keeps one agent's calls ("main" or a subagent id).
 */
export async function getToolCalls(testId: string, options: RunLookupOptions = {}): Promise<ToolCallView[]> {
  const run = await readStoredRun(testId, options);
  return listToolCalls(run, options.agent === undefined ? {} : { agent: options.agent });
}

/** The tool names of run `testId` in call order (`["Bash", "Read", ...]`). */
export async function getToolSequence(testId: string, options: RunLookupOptions = {}): Promise<string[]> {
  const run = await readStoredRun(testId, options);
  return toolSequence(run, options.agent === undefined ? {} : { agent: options.agent });
}
