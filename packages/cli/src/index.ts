// The public API of @evals/cli: the `evals` binary's exit codes and bad-input errors, and `evals` itself
// to call in a process. Checked in as api-report.md beside package.json; `npm run api` writes it again.
export type { Command, CommandIo } from "./command.js";
export { BadInputError, SetupError, UnreadableFileError, UsageError } from "./errors.js";
export { COMMAND_NAMES, evals, evalsUsage, loadCommands } from "./evals.js";
export { EXIT, EXIT_CODES_HELP } from "./exit-codes.js";
