#!/usr/bin/env node
// The capture hook Claude Code runs for each event (and `evals-hook settings`). Built into one
// CommonJS file that needs only Node's built-ins; see tsup.config.ts.
import { main } from "../cli.js";

const hookMode =
  process.argv[2] === undefined || !["settings", "help", "--help", "-h"].includes(process.argv[2]);
if (hookMode) {
  // Whatever happens, Claude Code sees exit 0 and an empty stdout (and no deprecation notices).
  process.noDeprecation = true;
  process.on("uncaughtException", () => process.exit(0));
  process.on("unhandledRejection", () => process.exit(0));
  process.on("SIGTERM", () => process.exit(0));
}
main(process.argv.slice(2)).then(
  (code) => process.exit(hookMode ? 0 : code),
  () => process.exit(hookMode ? 0 : 1),
);
