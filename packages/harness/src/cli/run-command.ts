import { parseArgs } from "node:util";
import { formatCasesTable } from "@evals/logging";
import { VCR_MODES, type VcrMode } from "@evals/vcr";
import { runCases } from "../run-case.js";

/** Exit codes of `evals run`. */
export const RUN_EXIT = { passed: 0, failed: 1, usage: 2 } as const;

export const RUN_USAGE = `Usage: evals run <cases...> [options]

Runs case files (YAML or JSON, or folders of them) with the real claude CLI, each trial in a fresh
copy of the case's fixture, judged by the case's own rules and expected violations. The model's
side is replayed from the recordings in the cassette folder.

Options:
  --trials <n>        runs per case (default: each case's trials, else 1)
  --record            record the model's side again (live: needs ANTHROPIC_API_KEY)
  --mode <mode>       record | replay | auto | strict | off (default: VCR_MODE, else strict on CI, else auto)
  --cassettes <dir>   the recordings' folder (default: cassettes)
  --suite <name>      the suite: recordings go to <dir>/<suite>/ (default: each case file's name)
  --concurrency <n>   trials running at once (default 1)
  -h, --help          this help

Exit codes: 0 every case passed, 1 a case failed, 2 bad usage or unreadable cases.`;

/**
 * `evals run <cases…> [--trials N] [--record]`: runs the cases through runCases and prints one
 * table and a summary line. Returns the exit code.
 */
export async function runCommand(
  args: string[],
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    io.stderr.write(`evals run: ${(error as Error).message}\n\n${RUN_USAGE}\n`);
    return RUN_EXIT.usage;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(`${RUN_USAGE}\n`);
    return RUN_EXIT.passed;
  }
  if (positionals.length === 0) {
    io.stderr.write(`evals run: name at least one case file or folder\n\n${RUN_USAGE}\n`);
    return RUN_EXIT.usage;
  }
  const trials = count(values.trials, "--trials");
  const concurrency = count(values.concurrency, "--concurrency");
  const problem = trials.problem ?? concurrency.problem;
  if (problem) {
    io.stderr.write(`evals run: ${problem}\n`);
    return RUN_EXIT.usage;
  }
  if (values.mode !== undefined && !(VCR_MODES as readonly string[]).includes(values.mode)) {
    io.stderr.write(`evals run: --mode must be one of ${VCR_MODES.join(", ")}, got ${values.mode}\n`);
    return RUN_EXIT.usage;
  }
  const mode = (values.record ? "record" : values.mode) as VcrMode | undefined;
  let result: Awaited<ReturnType<typeof runCases>>;
  try {
    result = await runCases(positionals, {
      cassette: { dir: values.cassettes ?? "cassettes", ...(mode ? { mode } : {}) },
      ...(trials.value !== undefined ? { trials: trials.value } : {}),
      ...(concurrency.value !== undefined ? { concurrency: concurrency.value } : {}),
      ...(values.suite ? { suite: values.suite } : {}),
    });
  } catch (error) {
    io.stderr.write(`evals run: ${(error as Error).message}\n`);
    return RUN_EXIT.usage;
  }
  const results = result.outcomes.map((outcome) => outcome.result);
  io.stdout.write(`${formatCasesTable(results)}\n`);
  for (const outcome of result.outcomes) {
    if (outcome.message) io.stdout.write(`\n${outcome.message}\n`);
  }
  const passed = result.outcomes.filter((outcome) => outcome.passed).length;
  const trialCount = results.reduce((sum, caseResult) => sum + caseResult.trials.length, 0);
  io.stdout.write(
    `\n${results.length} case(s), ${trialCount} trial(s): ${passed} passed, ${results.length - passed} failed\n`,
  );
  return result.passed ? RUN_EXIT.passed : RUN_EXIT.failed;
}

function parse(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: {
      trials: { type: "string" },
      record: { type: "boolean" },
      mode: { type: "string" },
      cassettes: { type: "string" },
      suite: { type: "string" },
      concurrency: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
}

function count(text: string | undefined, flag: string): { value?: number; problem?: string } {
  if (text === undefined) return {};
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1)
    return { problem: `${flag} must be a positive integer, got ${text}` };
  return { value };
}
