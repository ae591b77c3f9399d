/**
 * Versions of the file formats defined here. A reader accepts the versions it knows and says clearly
 * when a file is newer than it understands.
 */
export const RESULTS_VERSION = 1 as const;
export const EVAL_TEST_META_VERSION = 1 as const;
