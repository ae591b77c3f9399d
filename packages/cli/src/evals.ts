import { createRequire } from "node:module";
import { wantsHelp } from "./args.js";
import type { Command, CommandIo } from "./command.js";
import { compare } from "./compare-command.js";
import { BadInputError, internalErrorMessage, UsageError } from "./errors.js";
import { EXIT, EXIT_CODES_HELP } from "./exit-codes.js";
import { grade } from "./grade-command.js";
import { history } from "./history-command.js";
import { merge } from "./merge-command.js";
import { migrate } from "./oac/migrate-command.js";
import { report } from "./report-command.js";
import { loadRuleModules } from "./rule-modules.js";
import { rules } from "./rules-command.js";
import { recordSubcommand, runSubcommand } from "./run-command.js";
import { terminalSafeIo } from "./terminal-safe.js";
import { validate } from "./validate-command.js";
import { view } from "./view-command.js";

/**
 * The `evals` subcommands, in help order. A command is one entry: its name, one line of help, and
 * `run(args, io) => exit code`.
 * Bad input, usage or setup is a BadInputError, printed here with the command's name (exit 2).
 */
export const COMMANDS: readonly Command[] = [
  runSubcommand,
  recordSubcommand,
  grade,
  validate,
  rules,
  report,
  merge,
  history,
  compare,
  view,
  migrate,
];

/** `evals --help`. */
export function evalsUsage(commands: readonly Command[] = COMMANDS): string {
  const width = Math.max(...commands.map((command) => command.name.length), "help".length);
  const lines = [
    ...commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
    `  ${"help".padEnd(width)}  this help, or a command's: evals help <command>`,
  ];
  return `Usage: evals <command> [arguments] [options]

Commands:
${lines.join("\n")}

Every command takes --help. Options: -h, --help (this help), -v, --version (the version),
--rules <module> (any command, any number: load your own rules, made with defineRule, so that case
files may name them).

${EXIT_CODES_HELP}`;
}

/**
 * The `evals` command line: runs the subcommand `argv[0]` with the rest and returns the exit code
 * (see EXIT). A command that throws is an internal error: one line, the stack with --verbose.
 * Whatever it prints is terminal-safe (see terminalSafe).
 */
export async function evals(
  argv: string[],
  io: CommandIo,
  commands: readonly Command[] = COMMANDS,
): Promise<number> {
  // Case names, ids and file names are the user's text: printed, they must not drive the terminal.
  io = terminalSafeIo(io);
  const loaded = await loadRuleModules(argv);
  if ("error" in loaded) {
    io.stderr.write(`evals: ${loaded.error}\n`);
    return EXIT.badInput;
  }
  io = { ...io, rules: loaded.rules };
  const [name, ...args] = loaded.args;
  if (name === undefined) {
    io.stderr.write(`${evalsUsage(commands)}\n`);
    return EXIT.badInput;
  }
  if (name === "-h" || name === "--help") {
    io.stdout.write(`${evalsUsage(commands)}\n`);
    return EXIT.passed;
  }
  if (name === "-v" || name === "--version") {
    io.stdout.write(`${version()}\n`);
    return EXIT.passed;
  }
  if (name === "help") {
    if (args[0] === undefined) {
      io.stdout.write(`${evalsUsage(commands)}\n`);
      return EXIT.passed;
    }
    const command = commands.find((item) => item.name === args[0]);
    return command ? run(command, ["--help"], io) : unknown(args[0], io, commands);
  }
  const command = commands.find((item) => item.name === name);
  return command ? run(command, args, io) : unknown(name, io, commands);
}

async function run(command: Command, args: string[], io: CommandIo): Promise<number> {
  if (wantsHelp(args)) {
    io.stdout.write(`${command.usage}\n`);
    return EXIT.passed;
  }
  try {
    return await command.run(args, io);
  } catch (error) {
    if (error instanceof BadInputError) {
      const usage = error instanceof UsageError ? `\n${command.usage}\n` : "";
      io.stderr.write(`evals ${command.name}: ${error.message}\n${usage}`);
      return EXIT.badInput;
    }
    io.stderr.write(`${internalErrorMessage(error, args.includes("--verbose"), `evals ${command.name}`)}\n`);
    return EXIT.internalError;
  }
}

function unknown(name: string, io: CommandIo, commands: readonly Command[]): number {
  io.stderr.write(`evals: unknown command ${JSON.stringify(name)}\n\n${evalsUsage(commands)}\n`);
  return EXIT.badInput;
}

function version(): string {
  return (createRequire(import.meta.url)("../package.json") as { version: string }).version;
}
