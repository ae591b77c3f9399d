import { join } from "node:path";
import {
  type AgentRunResult,
  isRunFolder,
  listToolCalls,
  RUN_FOLDER_FILES,
  type Run,
  readRunFolder,
  readRunFolderResult,
  type ToolCallView,
  toolSequence,
} from "@evals/core";
import { CaptureNotFoundError, type RunLookupOptions, runDirFor } from "@evals/hooks";

/**
 * Reading runs back by their run id (TEST_RUN_ID), as the seeds' getToolCalls(testId) did: the
 * reconciled run runAgent stored in `test-output/<id>/result.json`, or, for a run the harness did not
 * start, the run built from the capture hook's events.jsonl alone.
 */

/** The file runAgent writes its result to, in the run's folder (see @evals/core's run folder). */
export const RESULT_FILE = RUN_FOLDER_FILES.result;

/** The stored result of a runAgent run (for re-grading without running the agent again). */
export function readRunResult(testId: string, options: Pick<RunLookupOptions, "root"> = {}): AgentRunResult {
  const dir = runDirFor(testId, options);
  const result = readRunFolderResult(dir);
  if (!result) {
    throw new Error(
      `No stored result for run ${JSON.stringify(testId)}: ${join(dir, RESULT_FILE)} does not exist`,
    );
  }
  return { ...result, origin: "stored" };
}

/**
 * The run of `testId`, read by @evals/core's readRunFolder: runAgent's reconciled run when stored,
 * else the stream, else the hooks' events alone (with the capture hook's own problems as notes).
 */
export async function readStoredRun(testId: string, options: RunLookupOptions = {}): Promise<Run> {
  const dir = runDirFor(testId, options);
  if (!isRunFolder(dir)) throw new CaptureNotFoundError(join(dir, RUN_FOLDER_FILES.events));
  const folder = await readRunFolder(dir, {
    ...(options.inferDenials === undefined ? {} : { inferDenials: options.inferDenials }),
    ...(options.onError === undefined ? {} : { onError: options.onError }),
    ...(options.onBadLine === undefined ? {} : { onBadLine: options.onBadLine }),
  });
  return folder.run;
}

/**
 * The tool calls of run `testId`, in order, each with its result and status (ok, error, denied,
 * incomplete) and the agent that made it. `agent` keeps one agent's calls ("main" or a subagent id).
 */
export async function getToolCalls(testId: string, options: RunLookupOptions = {}): Promise<ToolCallView[]> {
  const run = await readStoredRun(testId, options);
  return listToolCalls(run, options.agent === undefined ? {} : { agent: options.agent });
}

/** The tool names of run `testId` in call order: `["Bash", "Read", ...]`. */
export async function getToolSequence(testId: string, options: RunLookupOptions = {}): Promise<string[]> {
  const run = await readStoredRun(testId, options);
  return toolSequence(run, options.agent === undefined ? {} : { agent: options.agent });
}
