import {
  CaseFileError,
  casePrompts,
  type EvalCase,
  formatEvaluation,
  gradeStoredRun,
  gradeWhileReading,
  type HarnessVerdict,
  loadCases,
  loadStoredRun,
  NoGradableCaseError,
  type RuleRegistry,
  type StoredRun,
  StoredRunError,
  streamedRunSource,
} from "@evals/evaluators";
import { parseCommandArgs } from "./args.js";
import type { Command, CommandIo } from "./command.js";
import { BadInputError, UnreadableFileError, UsageError } from "./errors.js";
import { EXIT, EXIT_CODES_HELP } from "./exit-codes.js";
import { jsonPieces } from "./json-in-pieces.js";
import { gradeAgent } from "./runners.js";
import { writeJsonText } from "./terminal-safe.js";

/** `evals grade --help`. */
export const GRADE_USAGE = `Usage: evals grade <run folder | result.json | cassette.json | run.json | stream.jsonl | events.jsonl> [--case <case file>] [options]

Grades a stored run against a case without running the agent again (a Claude Code, OpenCode, Codex or Gemini CLI run). A run folder the harness wrote
(test-output/<run id>/) holds the case it ran: without --case, that case is graded again, and a
trial the harness marked error (a replay that diverged from its recording) fails with its reason.
A wire recording (*.recording.json of @evals/vcr) holds model traffic, not a run: grade the run
folder of the trial that replayed it instead.

Options:
  --case <file>     the case file (YAML or JSON); optional for a harness run folder
  --case-id <id>    which case, when the file holds several
  --agent <name>    whose output a bare .jsonl is: claude-code (stream-json), opencode
                    (\`opencode run --format json\`), codex (\`codex exec --json\`) or gemini
                    (\`gemini --output-format stream-json\`); without it Claude Code's or OpenCode's
                    format is detected from the first line; a file in another agent's
                    format than the one it is read as is refused, naming the --agent to use
  --json            print the evaluation as JSON (indented on a terminal, compact otherwise)
  --verbose         show every violation and the evidence (and the stack of an internal error)
  -h, --help        this help

${EXIT_CODES_HELP}
Here: 0 the case passes, 1 it fails, 2 the run or the case file cannot be read (or the run holds no
case and --case is not given).`;

/** `evals grade`: grades a stored run (a run folder, cassette, stream.jsonl ...) without running the agent. */
export const grade: Command = {
  name: "grade",
  summary: "grade a stored run (a run folder under test-output/) against its case, without running the agent",
  usage: GRADE_USAGE,
  run: async (args, io) => {
    const { values, positionals } = parseCommandArgs("grade", args, {
      case: { type: "string" },
      "case-id": { type: "string" },
      agent: { type: "string" },
      json: { type: "boolean" },
      verbose: { type: "boolean" },
    });
    const [target, extra] = positionals;
    if (extra !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(extra)}`);
    if (target === undefined)
      throw new UsageError(
        "which run? give a run folder, cassette or stream.jsonl (evals grade test-output/<run id>)",
      );
    const agent = gradeAgent(values.agent);
    const evalCase =
      values.case === undefined ? undefined : chooseCase(values.case, values["case-id"], io.rules);
    const loadOptions = {
      ...(evalCase ? { prompts: casePrompts(evalCase) } : {}),
      ...(agent ? { agent } : {}),
    };
    const options = { json: values.json === true, verbose: values.verbose === true };
    try {
      // A stream-json file, bare or a run folder's, and a run folder's result.json are graded while
      // they are read: a long run in bounded memory. Without --case, a run folder's stored case.
      const streamed = await readingTarget(target, async () => {
        const source = await streamedRunSource(target, loadOptions);
        return source && (evalCase || source.manifest?.case)
          ? gradeWhileReading(source, evalCase, io.rules)
          : undefined;
      });
      if (streamed) {
        for (const warning of streamed.stored.warnings) io.stderr.write(`evals grade: warning: ${warning}\n`);
        await print(
          streamed.evaluation,
          streamed.harnessVerdict,
          streamed.stored,
          { ...options, toolCalls: streamed.toolCalls },
          io,
        );
        return streamed.evaluation.passed ? EXIT.passed : EXIT.failed;
      }
      const stored = await readingTarget(target, () => loadStoredRun(target, loadOptions));
      for (const warning of stored.warnings) io.stderr.write(`evals grade: warning: ${warning}\n`);
      const graded = await gradeStoredRun(stored, evalCase, io.rules);
      await print(graded.evaluation, graded.harnessVerdict, stored, options, io);
      return graded.evaluation.passed ? EXIT.passed : EXIT.failed;
    } catch (error) {
      if (!(error instanceof NoGradableCaseError)) throw error;
      if (error.reason === "no-case") throw new UsageError(`--case <file> is required (${error.message})`);
      throw new BadInputError(
        `${error.message.replace("\n", "; give --case <file>\n")}${error.harnessVerdict ? `\n${harnessVerdictLine(error.harnessVerdict)}` : ""}`,
      );
    }
  },
};

/** The case of --case (and --case-id, when the file holds several). */
function chooseCase(file: string, id: string | undefined, rules: RuleRegistry | undefined): EvalCase {
  let cases: EvalCase[];
  try {
    cases = loadCases(file, rules ? { rules } : {});
  } catch (error) {
    if (error instanceof CaseFileError)
      throw new BadInputError(
        error.unreadable
          ? error.message
          : `invalid case file (evals validate ${file} lists its problems)\n${error.message}`,
      );
    throw error;
  }
  const chosen = id ? cases.find((item) => item.id === id) : cases.length === 1 ? cases[0] : undefined;
  if (chosen) return chosen;
  const ids = cases.map((item) => item.id).join(", ");
  throw new BadInputError(
    id
      ? `${file} has no case ${JSON.stringify(id)} (cases: ${ids})`
      : `${file} holds ${cases.length} cases; pick one with --case-id (${ids})`,
  );
}

/**
 * Reads the run to grade (@evals/evaluators' loadStoredRun, a run folder through @evals/core's
 * readRunFolder, the one reader of run folders; or gradeWhileReading); what cannot be read is bad
 * input naming the file.
 */
async function readingTarget<T>(target: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    // A file the system will not read (EACCES: another user's run) is unreadable input too.
    const system = typeof (error as NodeJS.ErrnoException).syscall === "string";
    if (error instanceof StoredRunError || (error as Error).name === "JsonlLineError" || system)
      throw new UnreadableFileError(
        target,
        `cannot read the run: ${(error as Error).message} (evals grade takes a run folder, test-output/<run id>, or its result.json, run.json, stream.jsonl or events.jsonl)`,
      );
    throw error;
  }
}

async function print(
  evaluation: Awaited<ReturnType<typeof gradeStoredRun>>["evaluation"],
  harness: HarnessVerdict | undefined,
  stored: StoredRun,
  options: { json: boolean; verbose: boolean; toolCalls?: number },
  io: CommandIo,
): Promise<void> {
  if (options.json) {
    // In pieces: the report of a very long run outgrows the longest string V8 can make, and a
    // reader slower than the writer (a pipe) must not make the report pile up in memory.
    // Indented for a terminal, compact for a program.
    const indent = (io.stdout as { isTTY?: boolean }).isTTY ? 2 : 0;
    for (const piece of jsonPieces(
      {
        source: stored.file,
        format: stored.format,
        ...evaluation,
        ...(stored.warnings.length > 0 ? { warnings: stored.warnings } : {}),
        ...(harness ? { harnessVerdict: harness } : {}),
      },
      { indent },
    )) {
      if (!writeJsonText(io.stdout, piece)) await drained(io.stdout);
    }
    io.stdout.write("\n");
    return;
  }
  const replayed = stored.result?.origin === "replay" ? ", replayed: its cost was the recording's" : "";
  io.stdout.write(
    `${formatEvaluation(evaluation, stored.run, { source: `${stored.file} (${stored.format}${replayed})`, verbose: options.verbose, ...(options.toolCalls !== undefined ? { toolCalls: options.toolCalls } : {}) })}\n`,
  );
  if (harness) {
    const same =
      harness.status === "error"
        ? !evaluation.passed
        : harness.status === (evaluation.passed ? "passed" : "failed");
    io.stdout.write(
      `The harness's verdict on this run: ${harness.status.toUpperCase()}${same ? "" : " (not this one: the harness ran other scorers or options)"}\n`,
    );
  }
}

/**
 * Waits until `stream` can take more, or can take nothing more (closed, or its reader gone: the
 * rest is dropped). A writer without events, as tests pass, never has to wait.
 */
function drained(stream: NodeJS.WritableStream): Promise<void> {
  if (typeof stream.once !== "function") return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      for (const event of ["drain", "close", "error"]) stream.removeListener(event, done);
      resolve();
    };
    for (const event of ["drain", "close", "error"]) stream.once(event, done);
  });
}

/** The verdict the harness stored, in one line: "FAILED (outcome 0.00 failed, my-scorer 1.00 passed)". */
function harnessVerdictLine(verdict: HarnessVerdict): string {
  const scores = verdict.scores.map(
    (score) => `${score.scorer} ${score.score.toFixed(2)} ${score.passed ? "passed" : "failed"}`,
  );
  const why = verdict.error?.split("\n")[0] ?? scores.join(", ");
  return `The harness's verdict on this run: ${verdict.status.toUpperCase()}${why ? ` (${why})` : ""}`;
}
