import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  type AgentRunResult,
  AgentRunResultSchema,
  listToolCalls,
  type Run,
  type ToolCallView,
  toolSequence,
} from "@evals/core";
import { type RunLookupOptions, readRun, runDirFor } from "@evals/hooks";

/**
 * Reading runs back by their run id (TEST_RUN_ID), as the seeds' getToolCalls(testId) did: the
 * reconciled run runAgent stored in `test-output/<id>/result.json`, or, for a run the harness did not
 * start, the run built from the capture hook's events.jsonl alone.
 */

/** The file runAgent writes its result to, in the run's folder. */
export const RESULT_FILE = "result.json";

/** The stored result of a runAgent run (for re-grading without running the agent again). */
export function readRunResult(testId: string, options: Pick<RunLookupOptions, "root"> = {}): AgentRunResult {
  const file = join(runDirFor(testId, options), RESULT_FILE);
  if (!existsSync(file))
    throw new Error(`No stored result for run ${JSON.stringify(testId)}: ${file} does not exist`);
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new Error(`${file}: not valid JSON: ${(error as Error).message}`);
  }
  const parsed = AgentRunResultSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${file} (field ${issue.path.join(".") || "(root)"}): ${issue.message}`);
  }
  return { ...parsed.data, origin: "stored" };
}

/** The run of `testId`: runAgent's reconciled run when stored, else the hooks' events alone. */
export async function readStoredRun(testId: string, options: RunLookupOptions = {}): Promise<Run> {
  const dir = runDirFor(testId, options);
  if (existsSync(join(dir, RESULT_FILE))) return readRunResult(testId, options).run;
  return readRun(dir, options);
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
