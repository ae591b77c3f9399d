/**
 * Versions of the file formats defined here. A reader accepts the versions it knows and says
 * clearly when a file is newer than it understands.
 */
export const CAPTURED_EVENT_VERSION = 1 as const;
export const RUN_VERSION = 1 as const;
export const EVALUATOR_RESULT_VERSION = 1 as const;
export const RUN_FOLDER_VERSION = 1 as const;
