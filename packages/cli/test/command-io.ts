import { PassThrough } from "node:stream";
import type { CommandIo } from "../src/command.js";
import { evals } from "../src/evals.js";

/** What an `evals` command run in this process did: its exit code and what it printed. */
export interface CommandRun {
  code: number;
  out: string;
  err: string;
}

/** Runs an `evals` command (a Command's `run`, or runCommand) in this process, capturing its output. */
export async function runInProcess(
  command: (args: string[], io: CommandIo) => Promise<number>,
  args: string[],
): Promise<CommandRun> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (chunk) => (out += chunk));
  stderr.on("data", (chunk) => (err += chunk));
  const code = await command(args, { stdout, stderr });
  return { code, out, err };
}

/** `evals <name> <args>` as a function for runInProcess: the command as `evals` runs it (help, bad input, exit code). */
export function evalsCommand(name: string): (args: string[], io: CommandIo) => Promise<number> {
  return (args, io) => evals([name, ...args], io);
}
