/** The exit codes of every `evals` command. */
export const EXIT = {
  /** The command did its job: the case passed, the files are valid, the reports are written. */
  passed: 0,
  /** The command ran and found a failure: a case failed, a case file is invalid. */
  failed: 1,
  /**
   * Bad input, usage or setup: an unknown command or option, a file that cannot be read or is not
   * what it should be, an output folder that cannot be written, no agent CLI, a missing recording.
   */
  badInput: 2,
  /** A bug in evals: a one-line message, the stack with --verbose. */
  internalError: 3,
} as const;

/** The exit codes, as every `--help` ends. */
export const EXIT_CODES_HELP = `Exit codes: 0 passed, 1 failed (an agent failed a case, a case file is invalid), 2 bad input,
usage or setup (checked before anything runs where it can), 3 internal error (a bug in evals: one
line, the stack with --verbose).`;
