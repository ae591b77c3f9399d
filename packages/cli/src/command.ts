import type { RuleRegistry } from "@evals/evaluators";

/** Where a command writes (its output, and its problems), and the rules its case files may name. */
export interface CommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** The built-in rules and those of the `--rules` modules (default: the built-in rules). */
  rules?: RuleRegistry;
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
