// The run folder's file names, apart from its schemas: the capture hook's bundle takes them from here
// without pulling in zod.

/** The folder, under an output root, that holds one run folder per run id: `<root>/test-output/<run id>/`. */
export const RUNS_FOLDER = "test-output";

/**
 * The run folder, `test-output/<run id>/`: everything one run of an agent left behind, and what
 * re-grading it needs. One writer (writeRunFolder) and one reader (readRunFolder) for every package:
 * - `run-folder.json`: the manifest (this module's format, versioned): the run id, the options the
 *   agent ran with, and, when the harness ran a case, the case and how it was graded;
 * - `result.json`: the AgentRunResult (the reconciled run, exit code, timed out, origin, error);
 * - `stream.jsonl`: the CLI's stream-json output; `events.jsonl`: the capture hook's events.
 */
export const RUN_FOLDER_FILES = {
  manifest: "run-folder.json",
  result: "result.json",
  stream: "stream.jsonl",
  events: "events.jsonl",
  /** A serialized Run (older folders, or written by hand). */
  run: "run.json",
  /** The capture hook's tool calls in the seeds' format (not read to build the run). */
  toolCalls: "tool-calls.jsonl",
  /** The capture hook's own problems, one JSON object per line: they become notes of a hooks-only run. */
  hookErrors: "hook-errors.log",
} as const;
