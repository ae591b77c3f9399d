#!/usr/bin/env node
// The `evals` binary (dist/cli.js).
import { evals } from "./evals.js";

// A reader that stops early (`evals grade ... | head`) closes the pipe: the rest of the output is
// dropped and the command still ends with its own exit code, instead of crashing on EPIPE.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
  process.stdout.write = () => true;
});

evals(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr }).then((code) => {
  process.exitCode = code;
});
