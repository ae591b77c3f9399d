/** Where a command writes: its output, and its problems. */
export interface CommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/**
 * One `evals` subcommand: `run` gets the arguments after its name and returns the exit code (see
 * EXIT), or throws a BadInputError (exit 2). `evals` answers `--help` with its usage.
 */
export interface Command {
  name: string;
  /** One line for `evals help`. */
  summary: string;
  /** `evals <name> --help`: ends with the exit codes (EXIT_CODES_HELP) and what they mean here. */
  usage: string;
  run(args: string[], io: CommandIo): Promise<number>;
}
