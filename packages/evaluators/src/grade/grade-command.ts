import { evaluate } from "../cases/evaluate.js";
import { CaseFileError, type LoadedCase, loadCases } from "../cases/load.js";
import { casePrompts } from "../cases/schema.js";
import { loadStoredRun, StoredRunError } from "./load-run.js";
import { formatEvaluation } from "./report.js";

interface Output {
  write(text: string): unknown;
}

interface GradeArguments {
  target?: string;
  caseFile?: string;
  caseId?: string;
  json: boolean;
  verbose: boolean;
  help: boolean;
}

function parseArguments(argv: string[]): GradeArguments | string {
  const parsed: GradeArguments = { json: false, verbose: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [name, inline] =
      arg.startsWith("--") && arg.includes("=")
        ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
        : [arg, undefined];
    const value = () => {
      if (inline !== undefined) return inline;
      const next = argv[++i];
      if (next === undefined) throw new Error(`${name} needs a value`);
      return next;
    };
    try {
      if (name === "--case") parsed.caseFile = value();
      else if (name === "--case-id") parsed.caseId = value();
      else if (name === "--json") parsed.json = true;
      else if (name === "--verbose") parsed.verbose = true;
      else if (name === "-h" || name === "--help") parsed.help = true;
      else if (name.startsWith("-")) return `unknown option ${name}`;
      else if (parsed.target === undefined) parsed.target = arg;
      else return `unexpected argument ${JSON.stringify(arg)}`;
    } catch (error) {
      return (error as Error).message;
    }
  }
  return parsed;
}

/** `evals grade`: returns the exit code (0 pass, 1 fail, 2 unreadable input). */
export async function gradeCommand(
  argv: string[],
  io: { stdout: Output; stderr: Output; usage: string },
): Promise<number> {
  const args = parseArguments(argv);
  if (typeof args === "string") {
    io.stderr.write(`evals grade: ${args}\n\n${io.usage}\n`);
    return 2;
  }
  if (args.help) {
    io.stdout.write(`${io.usage}\n`);
    return 0;
  }
  if (!args.target || !args.caseFile) {
    io.stderr.write(
      `evals grade: ${!args.target ? "which run? give a run folder, cassette or stream.jsonl" : "--case <file> is required"}\n\n${io.usage}\n`,
    );
    return 2;
  }
  let evalCase: LoadedCase;
  try {
    const cases = loadCases(args.caseFile);
    const chosen = args.caseId
      ? cases.find((item) => item.id === args.caseId)
      : cases.length === 1
        ? cases[0]
        : undefined;
    if (!chosen) {
      const ids = cases.map((item) => item.id).join(", ");
      io.stderr.write(
        args.caseId
          ? `evals grade: ${args.caseFile} has no case ${JSON.stringify(args.caseId)} (cases: ${ids})\n`
          : `evals grade: ${args.caseFile} holds ${cases.length} cases; pick one with --case-id (${ids})\n`,
      );
      return 2;
    }
    evalCase = chosen;
  } catch (error) {
    if (error instanceof CaseFileError) {
      io.stderr.write(`evals grade: invalid case file\n${error.message}\n`);
      return 2;
    }
    throw error;
  }
  let stored: Awaited<ReturnType<typeof loadStoredRun>>;
  try {
    stored = await loadStoredRun(args.target, { prompts: casePrompts(evalCase) });
  } catch (error) {
    if (error instanceof StoredRunError || (error as Error).name === "JsonlLineError") {
      io.stderr.write(`evals grade: cannot read the run: ${(error as Error).message}\n`);
      return 2;
    }
    throw error;
  }
  const evaluation = await evaluate(stored.run, evalCase);
  if (args.json) {
    io.stdout.write(
      `${JSON.stringify({ source: stored.file, format: stored.format, ...evaluation }, null, 2)}\n`,
    );
  } else {
    io.stdout.write(
      `${formatEvaluation(evaluation, stored.run, { source: `${stored.file} (${stored.format})`, verbose: args.verbose })}\n`,
    );
  }
  return evaluation.passed ? 0 : 1;
}
