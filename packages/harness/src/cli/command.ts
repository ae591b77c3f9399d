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
 * EXIT). It answers `--help` itself (so `evals help <name>` runs it with `["--help"]`).
 */
export interface Command {
  name: string;
  /** One line for `evals help`. */
  summary: string;
  run(args: string[], io: CommandIo): Promise<number>;
}
