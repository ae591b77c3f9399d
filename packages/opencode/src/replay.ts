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

/**
 * A describeEval / describeCases `cassette.replay` for OpenCode runs: OPENCODE_REPLAY_REPLACE plus the
 * working directory (the harness's fresh fixture copy per run) wherever it appears. Tool
 * calls should name files relative to the working directory: a recorded absolute path is replayed
 * as it was.
 */
export const OPENCODE_CASSETTE_REPLAY: { replace: Array<[RegExp, string]> } = {
  replace: [
    ...OPENCODE_REPLAY_REPLACE,
    // The harness's fresh fixture copy (@evals/worktree's copyFixture), e.g. in read's <path> output.
    [/[^\s"'`<>]*\/evals-fixture-[A-Za-z0-9_-]+/g, "<cwd>"],
    [/(Working directory: |Workspace root folder: )[^\n]*/g, "$1<cwd>"],
    // A subagent's session id, new every run, in the task tool's output (`<task id="ses_...">`).
    [/\bses_[A-Za-z0-9]+/g, "<session>"],
  ],
};
