import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { EvalCase, LoadedCase } from "@evals/evaluators";
import type { CaseOutcome } from "@evals/harness";
import { type CaseResult, CaseResultSchema, type TrialResult } from "@evals/logging";

/**
 * The journal of an `evals run`, in its results folder: a header line (when the run started, its
 * cases in order, its trials setting), then one line per trial as it gets its verdict, one per case
 * as its last trial finishes (its verdict and result), then `{"complete":true}` once the reports are
 * written. Each line is appended as it happens, so a run killed at any point leaves every decided
 * trial behind, and `--resume` runs only the trials that have no verdict (a line cut short by the
 * kill is ignored).
 */
export const JOURNAL_FILE = "run-journal.jsonl";
const JOURNAL_VERSION = 2;
const TrialResultSchema = CaseResultSchema.shape.trials.element;

interface JournalHeader {
  journal: typeof JOURNAL_VERSION;
  started_at: string;
  /** Each case as `<case file>#<case id>`, in run order. */
  cases: string[];
  trials: number | null;
}

/** A case's outcome as the journal keeps it (its agent runs stay in the run folders). */
export interface JournaledOutcome {
  position: number;
  passed: boolean;
  message?: string;
  result: CaseResult;
}

/** A trial's verdict, journaled as soon as it has one. */
interface JournaledTrial {
  position: number;
  trial: TrialResult;
}

/** A case still to run: its place in the run, and its trials decided before (kept as they are). */
export interface PendingCase {
  position: number;
  evalCase: EvalCase;
  keptTrials: Map<number, TrialResult>;
}

export interface RunJournal {
  file: string;
  startedAt: Date;
  /** The cases still to run, with their places in the run. */
  pending: PendingCase[];
  /** The outcomes kept from before (resumed), by position. */
  kept: JournaledOutcome[];
  /** Appends a finished case's outcome. */
  add(outcome: CaseOutcome, evalCase: EvalCase): void;
  /** Appends a trial's verdict. */
  addTrial(trial: TrialResult, evalCase: EvalCase): void;
  /** Marks the run finished: its reports are written. */
  complete(): void;
}

const caseKey = (evalCase: EvalCase) => `${(evalCase as Partial<LoadedCase>).file ?? ""}#${evalCase.id}`;

/** A new journal for a run of `cases` (an older one in the folder is replaced). */
export function startJournal(
  dir: string,
  cases: EvalCase[],
  trials: number | undefined,
  startedAt: Date,
): RunJournal {
  const file = join(dir, JOURNAL_FILE);
  mkdirSync(dirname(file), { recursive: true });
  const header: JournalHeader = {
    journal: JOURNAL_VERSION,
    started_at: startedAt.toISOString(),
    cases: cases.map(caseKey),
    trials: trials ?? null,
  };
  writeFileSync(file, `${JSON.stringify(header)}\n`);
  return journal(
    file,
    startedAt,
    cases.map((evalCase, position) => ({ position, evalCase, keptTrials: new Map() })),
    [],
  );
}

/**
 * The unfinished run of the journal in `dir`, to go on with: the trials with no verdict yet (with
 * `retryErrors`, also those whose verdict was an error: an API error, a timeout). A string says why
 * it cannot be resumed.
 */
export function resumeJournal(
  dir: string,
  cases: EvalCase[],
  trials: number | undefined,
  retryErrors: boolean,
): RunJournal | string {
  const file = join(dir, JOURNAL_FILE);
  if (!existsSync(file))
    return `no run to resume: ${file} does not exist (evals run writes it as it runs; run without --resume)`;
  const lines = readFileSync(file, "utf8").split("\n").filter(Boolean);
  const header = parseLine(lines[0]) as JournalHeader | undefined;
  if (header?.journal !== JOURNAL_VERSION || !Array.isArray(header.cases))
    return `${file}:1: not a run journal of this evals (version ${JOURNAL_VERSION}); run without --resume`;
  const keys = cases.map(caseKey);
  if (JSON.stringify(keys) !== JSON.stringify(header.cases))
    return `${file}: the journaled run ran other cases (${header.cases.length}, now ${keys.length}${firstDifference(header.cases, keys)}): resume it with the same case files, or run without --resume`;
  if ((trials ?? null) !== header.trials)
    return `${file}: the journaled run ran with --trials ${header.trials ?? "(each case's)"}, now ${trials ?? "(each case's)"}: resume it with the same --trials`;
  const entries = lines.slice(1).map(parseLine);
  if (entries.some((line) => (line as { complete?: boolean })?.complete) && !retryErrors)
    return `nothing to resume: the run in ${file} finished (every case has a verdict); --retry-errors re-runs its errored trials`;
  const decided = new Map<number, JournaledOutcome>();
  const trialsOf = new Map<number, Map<number, TrialResult>>();
  entries.forEach((line, i) => {
    const entry = line as Partial<JournaledOutcome & JournaledTrial> | undefined;
    if (!entry || typeof entry.position !== "number") return;
    const where = `${file}:${i + 2}`;
    if (entry.trial !== undefined) {
      const trial = TrialResultSchema.safeParse(entry.trial);
      if (!trial.success)
        throw new Error(`${where}: not a journaled trial (${trial.error.issues[0]?.message})`);
      const kept = trialsOf.get(entry.position) ?? new Map<number, TrialResult>();
      kept.set(trial.data.trial, trial.data);
      trialsOf.set(entry.position, kept);
      return;
    }
    const result = CaseResultSchema.safeParse(entry.result);
    if (!result.success)
      throw new Error(`${where}: not a journaled case (${result.error.issues[0]?.message})`);
    decided.set(entry.position, { ...(entry as JournaledOutcome), result: result.data });
  });
  // --retry-errors: a case with an errored trial runs again, its other trials kept.
  const kept = new Map(
    [...decided].filter(([, entry]) => !(retryErrors && entry.result.trials.some(isError))),
  );
  const pending = cases.flatMap((evalCase, position): PendingCase[] => {
    if (kept.has(position)) return [];
    const before = decided.get(position)?.result.trials ?? [...(trialsOf.get(position)?.values() ?? [])];
    const keptTrials = new Map(
      before.filter((trial) => !(retryErrors && isError(trial))).map((trial) => [trial.trial, trial]),
    );
    return [{ position, evalCase, keptTrials }];
  });
  // The journal goes on with what is kept only: a retried trial's old line must not come back.
  writeFileSync(
    file,
    [
      lines[0],
      ...[...kept.values()].map((entry) => JSON.stringify(entry)),
      ...pending.flatMap(({ position, keptTrials }) =>
        [...keptTrials.values()].map((trial) => JSON.stringify({ position, trial } satisfies JournaledTrial)),
      ),
    ]
      .join("\n")
      .concat("\n"),
  );
  return journal(file, new Date(header.started_at), pending, [...kept.values()]);
}

const isError = (trial: TrialResult) => trial.status === "error";

function journal(
  file: string,
  startedAt: Date,
  pending: PendingCase[],
  kept: JournaledOutcome[],
): RunJournal {
  const positions = new Map(pending.map(({ position, evalCase }) => [evalCase, position]));
  return {
    file,
    startedAt,
    pending,
    kept,
    add(outcome, evalCase) {
      const entry: JournaledOutcome = {
        position: positions.get(evalCase) ?? -1,
        passed: outcome.passed,
        ...(outcome.message ? { message: outcome.message } : {}),
        result: outcome.result,
      };
      appendFileSync(file, `${JSON.stringify(entry)}\n`);
    },
    addTrial(trial, evalCase) {
      const entry: JournaledTrial = { position: positions.get(evalCase) ?? -1, trial };
      appendFileSync(file, `${JSON.stringify(entry)}\n`);
    },
    complete() {
      appendFileSync(file, `${JSON.stringify({ complete: true })}\n`);
    },
  };
}

function parseLine(line: string | undefined): unknown {
  try {
    return line === undefined ? undefined : JSON.parse(line);
  } catch {
    return undefined;
  }
}

function firstDifference(before: string[], now: string[]): string {
  const i = before.findIndex((key, n) => key !== now[n]);
  const at = i === -1 ? before.length : i;
  return `; case ${at + 1} was ${before[at] ?? "none"}, now ${now[at] ?? "none"}`;
}
