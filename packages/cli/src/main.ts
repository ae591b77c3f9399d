#!/usr/bin/env node
// The `evals` binary (dist/cli.js).
import { evals } from "./evals.js";

evals(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr }).then((code) => {
  process.exitCode = code;
});
