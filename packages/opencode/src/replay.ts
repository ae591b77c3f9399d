/**
 * Rewrites for @evals/vcr's `replaying(file, { replace })` that make an OpenCode request match its
 * recording from another run: the run's private dirs (the tool descriptions name its TMPDIR) and
 * the date in the system prompt. The working directory is the caller's to mask (it is also in the
 * system prompt): add `[yourCwdPattern, "<cwd>"]`.
 */
export const OPENCODE_REPLAY_REPLACE: Array<[RegExp, string]> = [
  [/[^\s"'`<>]*\/evals-opencode-[A-Za-z0-9._-]+/g, "<sandbox>"],
  [/(Today's date:? ?)[A-Za-z0-9 ,:-]+/g, "$1<date>"],
];
