import { existsSync, statSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { assertRunId, RUNS_FOLDER, runFolderPath } from "@evals/core";
import { WorktreeError } from "./errors.js";
import { ensureSelfIgnoredFolder } from "./self-ignore.js";

export { ensureSelfIgnoredFolder };

/** The default cassette folder, relative to a project root. */
export const CASSETTE_FOLDER = "cassettes";

/**
 * The environment a run needs. The capture hook writes to
 * `$EVALS_OUTPUT_DIR/test-output/$TEST_RUN_ID/events.jsonl`; the vcr package reads and writes cassettes
 * in `$EVALS_CASSETTE_DIR`.
 */
export interface WorktreeTestEnv {
  /** Turns the capture hook on. */
  TEST_MODE: "true";
  /** The run id: names the run's output folder. */
  TEST_RUN_ID: string;
  /** The project the agent works in (the worktree). */
  CLAUDE_PROJECT_DIR: string;
  /** The root under which test-output/<TEST_RUN_ID>/ lives. */
  EVALS_OUTPUT_DIR: string;
  /** Where cassettes are read from and recorded to. */
  EVALS_CASSETTE_DIR: string;
  [name: string]: string;
}

export interface SetupWorktreeTestEnvOptions {
  /** Root of test-output/ (default: the worktree itself). */
  outputRoot?: string;
  /** Cassette folder (default: `<worktree>/cassettes`). */
  cassetteDir?: string;
}

/**
 * Creates the run's output folder (`<outputRoot>/test-output/<testId>/`, outputRoot defaulting to the
 * worktree) and returns the environment to give the agent. The test-output folder gets a `.gitignore`
 * of `*`, so run outputs never show up in `git status` or in a trial's outcome.
 */
export async function setupWorktreeTestEnv(
  worktreePath: string,
  testId: string,
  options: SetupWorktreeTestEnvOptions = {},
): Promise<WorktreeTestEnv> {
  assertRunId(testId, "test id");
  const project = resolve(worktreePath);
  if (!existsSync(project) || !statSync(project).isDirectory()) {
    throw new WorktreeError("INVALID_PATH", `Worktree ${project} does not exist or is not a folder.`, {
      path: project,
    });
  }
  const outputRoot = resolve(options.outputRoot ?? project);
  await ensureSelfIgnoredFolder(join(outputRoot, RUNS_FOLDER));
  await mkdir(runFolderPath(testId, outputRoot), { recursive: true });
  return {
    TEST_MODE: "true",
    TEST_RUN_ID: testId,
    CLAUDE_PROJECT_DIR: project,
    EVALS_OUTPUT_DIR: outputRoot,
    EVALS_CASSETTE_DIR: resolve(options.cassetteDir ?? join(project, CASSETTE_FOLDER)),
  };
}
