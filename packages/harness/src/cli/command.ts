/** Where a command writes: its output, and its problems. */
export interface CommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/**
 * One `evals` subcommand: `run` gets the arguments after its name and returns the exit code (see
 * EXIT). It answers `--help` itself (so `evals help <name>` runs it with `["--help"]`).
 */
export interface Command {
  name: string;
  /** One line for `evals help`. */
  summary: string;
  run(args: string[], io: CommandIo): Promise<number>;
}
