#!/usr/bin/env node
// The `evals` binary (dist/cli.js).
import { evals } from "./evals.js";
import { EXIT } from "./exit-codes.js";

// A reader that stops early (`evals grade ... | head`) closes the pipe: the rest of the output is
// dropped and the command still ends with its own exit code, instead of crashing on EPIPE.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  process.stdout.write = () => true;
  if (error.code === "EPIPE") return;
  // Output that cannot be written (a full disk) is no verdict: the command's own code would claim one.
  process.stderr.write(`evals: cannot write the output: ${error.message}\n`);
  process.exit(EXIT.badInput);
});

evals(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr }).then((code) => {
  process.exitCode = code;
});
