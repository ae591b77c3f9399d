/**
 * Bad input, usage or setup: the command ends with exit code 2 (EXIT.badInput) and one message,
 * "evals <command>: <message>", which says what is wrong, where, and what to do about it. Throw a
 * subclass from anywhere in a command; `evals` prints it.
 */
export class BadInputError extends Error {
  override name = "BadInputError";
}

/** The command line is wrong (an unknown option, a missing or extra argument): the usage follows the message. */
export class UsageError extends BadInputError {
  override name = "UsageError";
}

/** A file or folder given cannot be read, or is not what it should be: the message names it. */
export class UnreadableFileError extends BadInputError {
  override name = "UnreadableFileError";
  constructor(
    /** The path as the user gave it. */
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/** What the command needs around it is missing: no agent CLI executable, a port taken, no recording. */
export class SetupError extends BadInputError {
  override name = "SetupError";
}

/**
 * An internal error in one line (what and where it failed), or with its stack when verbose, said by
 * `command` ("evals grade").
 */
export function internalErrorMessage(error: unknown, verbose: boolean, command: string): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  if (verbose && error instanceof Error && error.stack) return `${command}: internal error: ${error.stack}`;
  return `${command}: internal error: ${text.split("\n")[0]} (this is a bug in ${command}; --verbose shows the stack)`;
}
