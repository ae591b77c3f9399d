import { RUN_FOLDER_FILES, RUNS_FOLDER } from "@evals/core";

/**
 * The capture hook's files in a run folder (`<root>/test-output/<run id>/`; @evals/core's
 * runFolderPath builds it and owns the run-id rule). Plain Node, no zod: the hook executable uses it.
 */

// The names are @evals/core's run folder layout (RUNS_FOLDER, RUN_FOLDER_FILES), kept under these names.
export const OUTPUT_FOLDER = RUNS_FOLDER;
export const EVENTS_FILE = RUN_FOLDER_FILES.events;
export const TOOL_CALLS_FILE = RUN_FOLDER_FILES.toolCalls;
export const HOOK_ERRORS_FILE = RUN_FOLDER_FILES.hookErrors;
/**
 * Space kept free for hook-errors.log while a run is captured: on a full disk the hook deletes it
 * and so can still log what it could not write. Removed at Stop and SessionEnd (made again by the next event).
 */
export const RESERVE_FILE = ".hook-reserve";
export const RESERVE_BYTES = 16 * 1024;
