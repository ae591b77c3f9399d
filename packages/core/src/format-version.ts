/**
 * Versions of the file formats defined here. A reader accepts the versions it knows and says
 * clearly when a file is newer than it understands.
 */
export const CAPTURED_EVENT_VERSION = 1 as const;
/**
 * A raw captured line: the hook input as Claude Code sent it, appended unparsed by the fast shell
 * hook; readers validate it and cut its depth (see readCapturedEvents).
 */
export const RAW_CAPTURED_EVENT_VERSION = 2 as const;
export const RUN_VERSION = 1 as const;
export const EVALUATOR_RESULT_VERSION = 1 as const;
export const RUN_FOLDER_VERSION = 1 as const;
