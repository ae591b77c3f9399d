import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { captureHookInput } from "./capture.js";
import { hookLimitsFromEnv } from "./config.js";
import { CAPTURABLE_HOOK_EVENTS } from "./events.js";
import { hookSeq } from "./seq.js";
import { type HookSettingsOptions, hookSettings, writeHookSettings } from "./settings.js";
import { readHookStdin, type StdinRead } from "./stdin.js";

/**
 * `evals-hook`: with no command it is the capture hook (what Claude Code runs); `evals-hook
 * settings` writes a settings file that registers it.
 */

const USAGE = `Usage:
  evals-hook                      capture the hook event on stdin (Claude Code runs this; active only
                                  when TEST_MODE=true; prints nothing, always exits 0)
  evals-hook settings [options]   print or write a Claude Code settings file registering the hook
    --out FILE                    write to FILE instead of printing (use with claude --settings FILE)
    --events A,B,...              events to register (default: every event the readers use)
    --node PATH                   Node executable for the command (default: this one)
    --entry shell|node|auto       the fast shell entry (under dash), the Node entry, or shell when
                                  dash is installed (default auto)
    --command CMD                 the whole hook command instead of the entry's
    --timeout SECONDS             per-hook timeout (default 30)
    --merge FILE                  start from this settings file, keeping its keys and hooks
  evals-hook help                 this text`;

/** Runs the capture hook: never writes to stdout, never throws. */
export async function runHook(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const seq = hookSeq();
  if (env.TEST_MODE !== "true") return;
  const limits = hookLimitsFromEnv(env);
  let input: StdinRead;
  try {
    input = await readHookStdin(limits);
  } catch (error) {
    // Getting process.stdin (the fallback reader) throws when fd 0 is closed or unusable.
    input = {
      text: "",
      problems: [{ kind: "bad_input", message: `stdin unavailable: ${(error as Error).message}` }],
    };
  }
  captureHookInput(input.text, {
    env,
    cwd: process.cwd(),
    pid: process.pid,
    seq,
    limits,
    stdinProblems: input.problems,
    ...unfinishedPid(env.EVALS_HOOK_UNFINISHED_PID),
    keepReserve: true,
  });
}

/** Set by the shell hook when its append failed half-way (see bin/evals-hook.sh). */
function unfinishedPid(text: string | undefined): { unfinishedPid?: number } {
  return text && /^\d{1,10}$/.test(text) ? { unfinishedPid: Number(text) } : {};
}

/** `evals-hook settings ...`: returns the exit code. */
export async function settingsCommand(args: string[]): Promise<number> {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        out: { type: "string" },
        events: { type: "string" },
        node: { type: "string" },
        command: { type: "string" },
        entry: { type: "string" },
        timeout: { type: "string" },
        merge: { type: "string" },
      },
      strict: true,
      allowPositionals: false,
    }) as { values: Record<string, string | undefined> });
  } catch (error) {
    process.stderr.write(`evals-hook settings: ${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  try {
    const options: HookSettingsOptions = {};
    if (values.events) {
      options.events = values.events
        .split(",")
        .map((name) => name.trim())
        .filter(Boolean);
      const unknown = options.events.filter(
        (name) => !(CAPTURABLE_HOOK_EVENTS as readonly string[]).includes(name),
      );
      if (unknown.length > 0) {
        process.stderr.write(
          `evals-hook: registering events the readers do not know: ${unknown.join(", ")}\n`,
        );
      }
    }
    if (values.node) options.node = values.node;
    if (values.command) options.command = values.command;
    if (values.entry) {
      if (!["auto", "shell", "node"].includes(values.entry))
        throw new Error(`--entry must be shell, node or auto, got ${values.entry}`);
      options.entry = values.entry as NonNullable<HookSettingsOptions["entry"]>;
    }
    if (values.timeout) {
      const seconds = Number(values.timeout);
      if (!Number.isFinite(seconds) || seconds <= 0)
        throw new Error(`--timeout must be a positive number of seconds, got ${values.timeout}`);
      options.timeoutSeconds = seconds;
    }
    if (values.merge) options.base = readSettingsFile(values.merge);
    if (values.out) {
      const file = writeHookSettings(values.out, options);
      process.stderr.write(`evals-hook: wrote ${file}\n`);
    } else {
      process.stdout.write(`${JSON.stringify(hookSettings(options), null, 2)}\n`);
    }
    return 0;
  } catch (error) {
    process.stderr.write(`evals-hook settings: ${(error as Error).message}\n`);
    return 1;
  }
}

function readSettingsFile(file: string) {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new Error(`cannot read --merge file ${file}: ${(error as Error).message}`);
  }
  try {
    const value = JSON.parse(text) as unknown;
    if (value === null || typeof value !== "object" || Array.isArray(value))
      throw new Error("not a JSON object");
    return value as HookSettingsOptions["base"] & object;
  } catch (error) {
    throw new Error(`--merge file ${file} is not a settings object: ${(error as Error).message}`);
  }
}

/** The executable's entry: dispatches on the first argument and returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === "settings") return settingsCommand(rest);
  if (command === "help" || command === "--help" || command === "-h") {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  try {
    await runHook();
  } catch {
    // runHook logs its own problems to the run's hook-errors.log and does not throw; should it
    // anyway, Claude Code must still see exit 0 and an empty stdout.
  }
  return 0;
}
