import { type ParseArgsConfig, parseArgs } from "node:util";
import { UsageError } from "./errors.js";

type Options = NonNullable<ParseArgsConfig["options"]>;
/** What parseArgs returns for these options: the values by option name, and the positionals. */
export type ParsedCommandArgs<O extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>
>;

/**
 * The one argument parser of every `evals` command: node's parseArgs, strict, positionals allowed
 * (`-h`/`--help` are answered by `evals` before a command runs). A bad command line throws a
 * UsageError naming the option or argument and the command whose help lists the right ones.
 */
export function parseCommandArgs<const O extends Options>(
  command: string,
  args: string[],
  options: O,
): ParsedCommandArgs<O> {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(
      `${parseProblem(error as Error & { code?: string })} (evals ${command} --help lists the options)`,
    );
  }
}

/** node's message, in the words every command uses ("unknown option --x", "--out needs a value"). */
function parseProblem(error: Error & { code?: string }): string {
  const option = /'(-[^' ]+)/.exec(error.message)?.[1];
  if (error.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && option) return `unknown option ${option}`;
  if (error.code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && option)
    return /argument missing/.test(error.message)
      ? `${option} needs a value`
      : /ambiguous/.test(error.message) // `--last -1`: node takes -1 for an option
        ? `${option} needs a value; one that starts with a dash is written ${option}=-…`
        : `${option} takes no value`;
  return error.message.split(". ")[0] as string;
}

/**
 * A numeric option's value, `min` to `max`, in decimal digits only: Number() also reads "1e3", "0x10",
 * " 3" and "" (0). Anything else is a UsageError naming the option and the value.
 */
export function wholeNumberOption(option: string, text: string, min: number, max?: number): number {
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= min && value <= (max ?? Number.MAX_SAFE_INTEGER)))
    throw new UsageError(
      `${option} must be a whole number from ${min}${max === undefined ? "" : ` to ${max}`}, got ${JSON.stringify(text)}`,
    );
  return value;
}

/** The positionals after the first `count`, as a usage error: "unexpected argument "x"". */
export function noMoreArguments(command: string, positionals: string[], count: number): void {
  const extra = positionals[count];
  if (extra !== undefined)
    throw new UsageError(
      `unexpected argument ${JSON.stringify(extra)} (evals ${command} --help lists the arguments)`,
    );
}

/** Whether the command line asks for help: -h or --help before a `--`. */
export function wantsHelp(args: string[]): boolean {
  const end = args.indexOf("--");
  return (end === -1 ? args : args.slice(0, end)).some((arg) => arg === "-h" || arg === "--help");
}
