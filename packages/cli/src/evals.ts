import { createRequire } from "node:module";
import { wantsHelp } from "./args.js";
import type { Command, CommandIo } from "./command.js";
import { BadInputError, internalErrorMessage, UsageError } from "./errors.js";
import { EXIT, EXIT_CODES_HELP } from "./exit-codes.js";
import { loadRuleModules } from "./rule-modules.js";
import { terminalSafeIo } from "./terminal-safe.js";

/**
 * The `evals` subcommands, in help order, each imported only when it is needed: `evals history`
 * loads the results database, not the agent runners `evals run` needs (a fresh process's start).
 * A command is its name, one line of help, and `run(args, io) => exit code`.
 */
const COMMAND_MODULES: readonly { name: string; load: () => Promise<Command> }[] = [
  { name: "run", load: async () => (await import("./run-command.js")).runSubcommand },
  { name: "record", load: async () => (await import("./run-command.js")).recordSubcommand },
  { name: "grade", load: async () => (await import("./grade-command.js")).grade },
  { name: "validate", load: async () => (await import("./validate-command.js")).validate },
  { name: "rules", load: async () => (await import("./rules-command.js")).rules },
  { name: "report", load: async () => (await import("./report-command.js")).report },
  { name: "merge", load: async () => (await import("./merge-command.js")).merge },
  { name: "history", load: async () => (await import("./history-command.js")).history },
  { name: "compare", load: async () => (await import("./compare-command.js")).compare },
  { name: "view", load: async () => (await import("./view-command.js")).view },
  { name: "migrate", load: async () => (await import("./oac/migrate-command.js")).migrate },
];

/** The names of the `evals` subcommands, in help order. */
export const COMMAND_NAMES: readonly string[] = COMMAND_MODULES.map((command) => command.name);

/** Every `evals` subcommand, in help order (imports all of them). */
export function loadCommands(): Promise<Command[]> {
  return Promise.all(COMMAND_MODULES.map((command) => command.load()));
}

/** `evals --help`. */
export function evalsUsage(commands: readonly Command[]): string {
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
 * Whatever it prints is terminal-safe (see terminalSafe). `commands` replaces the subcommands (by
 * default every one, each loaded when it runs).
 */
export async function evals(argv: string[], io: CommandIo, commands?: readonly Command[]): Promise<number> {
  // Case names, ids and file names are the user's text: printed, they must not drive the terminal.
  io = terminalSafeIo(io);
  const loaded = await loadRuleModules(argv);
  if ("error" in loaded) {
    io.stderr.write(`evals: ${loaded.error}\n`);
    return EXIT.badInput;
  }
  if (loaded.rules) io = { ...io, rules: loaded.rules };
  const [name, ...args] = loaded.args;
  const all = async () => commands ?? (await loadCommands());
  if (name === undefined) {
    io.stderr.write(`${evalsUsage(await all())}\n`);
    return EXIT.badInput;
  }
  if (name === "-h" || name === "--help") {
    io.stdout.write(`${evalsUsage(await all())}\n`);
    return EXIT.passed;
  }
  if (name === "-v" || name === "--version") {
    io.stdout.write(`${version()}\n`);
    return EXIT.passed;
  }
  if (name === "help") {
    if (args[0] === undefined) {
      io.stdout.write(`${evalsUsage(await all())}\n`);
      return EXIT.passed;
    }
    const command = await find(args[0], commands);
    return command ? run(command, ["--help"], io) : unknown(args[0], io, await all());
  }
  const command = await find(name, commands);
  return command ? run(command, args, io) : unknown(name, io, await all());
}

/** The subcommand called `name`, loading only its module. */
async function find(name: string, commands: readonly Command[] | undefined): Promise<Command | undefined> {
  if (commands) return commands.find((item) => item.name === name);
  return COMMAND_MODULES.find((item) => item.name === name)?.load();
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
