import type { CommandIo } from "./command.js";
import { EXIT } from "./exit-codes.js";

/**
 * The command's arguments, parsed by `parse` (node's parseArgs, strict: an unknown option throws).
 * On a bad argument, writes "evals <command>: <problem>" and the usage to stderr and returns undefined.
 */
export function parseCommandArgs<T>(
  command: string,
  usage: string,
  io: CommandIo,
  parse: () => T,
): T | undefined {
  try {
    return parse();
  } catch (error) {
    usageError(command, usage, (error as Error).message.split("\n")[0] ?? String(error), io);
    return undefined;
  }
}

/** Writes "evals <command>: <problem>" and the usage to stderr; returns the exit code for bad usage. */
export function usageError(command: string, usage: string, problem: string, io: CommandIo): number {
  io.stderr.write(`evals ${command}: ${problem}\n\n${usage}\n`);
  return EXIT.badInput;
}
