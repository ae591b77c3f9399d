import { killRunningGemini } from "../gemini/run-gemini.js";
import { StoreFileError } from "../store/json-file.js";
import { UsageError } from "./args.js";

/** What a script prints (one JSON object) and the code it exits with. */
export interface ScriptOutcome {
  exitCode: number;
  output: Record<string, unknown>;
}

const SIGNAL_CODES = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;

/**
 * Runs a script's handler and prints its one JSON object. Bad arguments exit 2 with the usage; a
 * damaged store file or any other error exits 1 with what went wrong. A signal (Ctrl-C, the Bash
 * tool's timeout) stops any Gemini still running before the script exits.
 */
export async function runScript(
  usage: string,
  handler: (argv: string[]) => Promise<ScriptOutcome>,
): Promise<void> {
  for (const [signal, code] of Object.entries(SIGNAL_CODES)) {
    process.once(signal, () => {
      killRunningGemini();
      emit({
        exitCode: code,
        output: { success: false, error: `Interrupted by ${signal}; Gemini was stopped.` },
      });
    });
  }
  const argv = process.argv.slice(2);
  let outcome: ScriptOutcome;
  if (argv.includes("--help") || argv.includes("-h")) {
    outcome = { exitCode: 0, output: { success: true, usage } };
  } else {
    try {
      outcome = await handler(argv);
    } catch (error) {
      outcome = failureOutcome(error, usage);
    }
  }
  emit(outcome);
}

export function failureOutcome(error: unknown, usage: string): ScriptOutcome {
  if (error instanceof UsageError) {
    return { exitCode: 2, output: { success: false, error: error.message, usage } };
  }
  if (error instanceof StoreFileError) {
    return { exitCode: 1, output: { success: false, error: error.message, file: error.file } };
  }
  return { exitCode: 1, output: { success: false, error: (error as Error)?.message ?? String(error) } };
}

function emit(outcome: ScriptOutcome): void {
  process.stdout.write(`${JSON.stringify(outcome.output, null, 2)}\n`, () => process.exit(outcome.exitCode));
}
