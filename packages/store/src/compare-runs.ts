import { execFileSync } from "node:child_process";
import { compareRates, passRate } from "@evals/logging";
import { firstDivergence, type StepDivergence, type TrialKey } from "./step-divergence.js";
import type { Store } from "./store.js";

/** A pass rate with its 95% Wilson interval (@evals/logging's passRate). */
export type PassRate = ReturnType<typeof passRate>;
/** B − A with its 95% Newcombe interval (@evals/logging's compareRates). */
export type RateDifference = ReturnType<typeof compareRates>;

/** What identifies a stored run in a comparison. */
export interface StoredRunInfo {
  id: string;
  suite: string;
  finished_at: string;
  git_commit: string | null;
  git_branch: string | null;
  agent_cli: string | null;
  agent_version: string | null;
  model: string | null;
  recorded_model: string | null;
  variant: string | null;
  case_count: number;
  case_set: string;
}

/** Per-trial means, B − A: money (spent, or what a replayed run's recording cost), tokens, turns, time. */
export interface RunDeltas {
  cost_usd?: number;
  /** Input plus output plus cache-read tokens. */
  tokens?: number;
  turns?: number;
  tool_calls?: number;
  duration_ms?: number;
}

/** regressed: B passes less often beyond noise; improved: more often; else within noise. */
export type CaseChange = "regressed" | "improved" | "within noise";

export interface StoredSideComparison {
  a: PassRate;
  b: PassRate;
  difference: RateDifference;
  change: CaseChange;
  deltas: RunDeltas;
}

export interface StoredCaseComparison extends StoredSideComparison {
  suite: string | null;
  case_id: string;
  name: string;
  /** The case file, relative to the project, when the results named it. */
  file: string | null;
  /** The case's verdict differs between the two runs (passed in one, not in the other). */
  flipped: boolean;
  /**
   * For a flipped case: where its trajectory in B first differs from A's (a passing trial against a
   * failing one); absent when the calls were the same (the case or its rules changed) or unrecorded.
   */
  divergence?: StepDivergence & { a_trial: TrialKey; b_trial: TrialKey };
}

export interface StoredRunComparison {
  version: 1;
  a: StoredRunInfo;
  b: StoredRunInfo;
  /** What differs between the runs that makes their verdicts incomparable (empty: comparable). */
  incomparable: string[];
  /** The cases both runs ran, in B's order. */
  cases: StoredCaseComparison[];
  /** Over the trials of every matched case, pooled. */
  overall: StoredSideComparison;
  only_in_a: { suite: string | null; case_id: string }[];
  only_in_b: { suite: string | null; case_id: string }[];
}

const RUN_COLUMNS =
  "id, suite, finished_at, git_commit, git_branch, agent_cli, agent_version, model, recorded_model, variant, case_count, case_set";
const WHOLE_RUN = "complete AND shard_index IS NULL";

/** A stored run, by its id (or a unique prefix of it of 6 characters or more). */
export async function storedRun(store: Store, id: string): Promise<StoredRunInfo | undefined> {
  const rows = await store.sql.query<StoredRunInfo>(
    `SELECT ${RUN_COLUMNS} FROM runs WHERE ${WHOLE_RUN} AND (id = $1 OR ($2 AND id LIKE $1 || '%')) LIMIT 2`,
    [id, /^[0-9a-f]{6,}$/.test(id)],
  );
  return rows.length === 1 ? info(rows[0]!) : undefined;
}

/** The most recently finished whole run of the database. */
export async function latestRun(store: Store): Promise<StoredRunInfo | undefined> {
  const [row] = await store.sql.query<StoredRunInfo>(
    `SELECT ${RUN_COLUMNS} FROM runs WHERE ${WHOLE_RUN} ORDER BY finished_at DESC, id LIMIT 1`,
  );
  return row ? info(row) : undefined;
}

export interface BaselineOptions {
  /** A run that is not the baseline (the run being compared). */
  exclude?: string;
  /** The git checkout a branch, tag or short commit is resolved in (default: the current folder). */
  cwd?: string;
}

/**
 * The most recent whole run of a baseline: a run id (or a prefix of one), else the runs recorded on
 * a git branch of that name, else those of a commit (its hash, a prefix of it, or any ref the git
 * checkout at `cwd` resolves: a tag, HEAD~1).
 */
export async function findBaselineRun(
  store: Store,
  baseline: string,
  options: BaselineOptions = {},
): Promise<StoredRunInfo | undefined> {
  const exclude = options.exclude ?? "";
  const byId = await storedRun(store, baseline);
  if (byId && byId.id !== exclude) return byId;
  const newest = async (where: string, value: string) => {
    const [row] = await store.sql.query<StoredRunInfo>(
      `SELECT ${RUN_COLUMNS} FROM runs WHERE ${WHOLE_RUN} AND id <> $2 AND ${where}
       ORDER BY finished_at DESC, id LIMIT 1`,
      [value, exclude],
    );
    return row ? info(row) : undefined;
  };
  const onBranch = await newest("git_branch = $1", baseline);
  if (onBranch) return onBranch;
  if (/^[0-9a-f]{7,40}$/.test(baseline)) {
    const atCommit = await newest("git_commit LIKE $1 || '%'", baseline);
    if (atCommit) return atCommit;
  }
  const commit = resolveCommit(baseline, options.cwd);
  return commit ? newest("git_commit = $1", commit) : undefined;
}

function resolveCommit(ref: string, cwd?: string): string | undefined {
  try {
    return execFileSync("git", ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], {
      cwd,
      encoding: "utf8",
      timeout: 5000,
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {
    return undefined;
  }
}

/**
 * What makes two runs' verdicts incomparable, one phrase each: a different case set, agent CLI or
 * version, model, recorded model or variant. Empty when comparable.
 */
export function incomparabilities(a: StoredRunInfo, b: StoredRunInfo): string[] {
  const differences: string[] = [];
  if (a.case_set !== b.case_set)
    differences.push(`the case set (${a.case_count} case(s) in A, ${b.case_count} in B, or other ids)`);
  const fields = [
    ["agent_cli", "the agent CLI"],
    ["agent_version", "the agent CLI version"],
    ["model", "the model"],
    ["recorded_model", "the recorded model"],
    ["variant", "the variant"],
  ] as const;
  for (const [field, what] of fields)
    if (a[field] !== b[field]) differences.push(`${what} (A ${a[field] ?? "none"}, B ${b[field] ?? "none"})`);
  return differences;
}

interface TrialRow {
  position: number;
  suite: string | null;
  case_id: string;
  name: string;
  file: string | null;
  case_status: string;
  trial: number | null;
  status: string | null;
  cost_usd: number | null;
  tokens: number | null;
  turns: number | null;
  tool_calls: number | null;
  duration_ms: number | null;
}

interface StoredCase {
  position: number;
  suite: string | null;
  case_id: string;
  name: string;
  file: string | null;
  status: string;
  trials: TrialRow[];
}

/**
 * Compares two stored runs of the same cases, A (the baseline) and B: per case matched by suite and
 * case id, and overall, each pass rate with its 95% Wilson interval, B − A with its 95% Newcombe
 * interval (regressed or improved when it excludes 0, else within noise), the per-trial deltas of
 * cost, tokens, turns, tool calls and time, and for each flipped case the first trajectory step
 * where B's run differs from A's. `incomparable` says what differs between the runs, if anything.
 */
export async function compareStoredRuns(
  store: Store,
  baseline: string,
  candidate: string,
): Promise<StoredRunComparison> {
  const a = await storedRun(store, baseline);
  const b = await storedRun(store, candidate);
  if (!a) throw new Error(`no complete run ${baseline} in the database`);
  if (!b) throw new Error(`no complete run ${candidate} in the database`);
  const casesA = await storedCases(store, a.id);
  const casesB = await storedCases(store, b.id);
  const keyOf = (c: StoredCase) => JSON.stringify([c.suite ?? "", c.case_id]);
  const byKeyA = new Map(casesA.map((c) => [keyOf(c), c]));
  const keysB = new Set(casesB.map(keyOf));
  const cases: StoredCaseComparison[] = [];
  const pooledA: TrialRow[] = [];
  const pooledB: TrialRow[] = [];
  for (const caseB of casesB) {
    const caseA = byKeyA.get(keyOf(caseB));
    if (!caseA) continue;
    const [trialsA, trialsB] = [counted(caseA), counted(caseB)];
    pooledA.push(...trialsA);
    pooledB.push(...trialsB);
    const flipped = (caseA.status === "passed") !== (caseB.status === "passed");
    const compared: StoredCaseComparison = {
      suite: caseB.suite,
      case_id: caseB.case_id,
      name: caseB.name,
      file: caseB.file,
      ...compareSides(trialsA, trialsB),
      flipped,
    };
    if (flipped) {
      const divergence = await flippedDivergence(store, a.id, caseA, b.id, caseB);
      if (divergence) compared.divergence = divergence;
    }
    cases.push(compared);
  }
  const unmatched = (c: StoredCase) => ({ suite: c.suite, case_id: c.case_id });
  return {
    version: 1,
    a,
    b,
    incomparable: incomparabilities(a, b),
    cases,
    overall: compareSides(pooledA, pooledB),
    only_in_a: casesA.filter((c) => !keysB.has(keyOf(c))).map(unmatched),
    only_in_b: casesB.filter((c) => !byKeyA.has(keyOf(c))).map(unmatched),
  };
}

async function storedCases(store: Store, runId: string): Promise<StoredCase[]> {
  const rows = await store.sql.query<TrialRow>(
    `SELECT c.position, c.suite, c.case_id, c.name, c.file, c.status AS case_status, t.trial, t.status,
            coalesce(t.cost_usd, t.recorded_cost_usd) AS cost_usd,
            t.input_tokens + t.output_tokens + coalesce(t.cache_read_tokens, 0) AS tokens,
            t.turns, t.tool_calls, t.duration_ms
     FROM cases c LEFT JOIN trials t ON t.run_id = c.run_id AND t.position = c.position
     WHERE c.run_id = $1 AND c.status <> 'skipped'
     ORDER BY c.position, t.trial`,
    [runId],
  );
  const cases = new Map<number, StoredCase>();
  for (const row of rows) {
    let c = cases.get(row.position);
    if (!c) {
      c = {
        position: row.position,
        suite: row.suite,
        case_id: row.case_id,
        name: row.name,
        file: row.file,
        status: row.case_status,
        trials: [],
      };
      cases.set(row.position, c);
    }
    if (row.trial !== null && row.status !== "skipped") c.trials.push(row);
  }
  return [...cases.values()];
}

/** A case's trials that count; a case that ran none (it errored first) counts as one with its status. */
function counted(c: StoredCase): TrialRow[] {
  if (c.trials.length > 0) return c.trials;
  const { trials: _, ...row } = c;
  return [
    {
      ...row,
      case_status: c.status,
      trial: null,
      status: c.status,
      cost_usd: null,
      tokens: null,
      turns: null,
      tool_calls: null,
      duration_ms: null,
    },
  ];
}

function compareSides(trialsA: TrialRow[], trialsB: TrialRow[]): StoredSideComparison {
  const rateOf = (trials: TrialRow[]) =>
    passRate(trials.filter((t) => t.status === "passed").length, trials.length);
  const [a, b] = [rateOf(trialsA), rateOf(trialsB)];
  const difference = compareRates(a, b);
  const change: CaseChange =
    difference.verdict === "worse"
      ? "regressed"
      : difference.verdict === "better"
        ? "improved"
        : "within noise";
  const deltas: RunDeltas = {};
  for (const metric of ["cost_usd", "tokens", "turns", "tool_calls", "duration_ms"] as const) {
    const meanA = meanOf(trialsA.map((t) => numberOrUndefined(t[metric])));
    const meanB = meanOf(trialsB.map((t) => numberOrUndefined(t[metric])));
    if (meanA !== undefined && meanB !== undefined) deltas[metric] = meanB - meanA;
  }
  return { a, b, difference, change, deltas };
}

function meanOf(values: (number | undefined)[]): number | undefined {
  const known = values.filter((value): value is number => value !== undefined && Number.isFinite(value));
  return known.length === 0 ? undefined : known.reduce((sum, value) => sum + value, 0) / known.length;
}

/** bigint columns come back as strings from a server. */
function numberOrUndefined(value: number | string | null | undefined): number | undefined {
  return value === null ? undefined : Number(value);
}

async function flippedDivergence(
  store: Store,
  runA: string,
  caseA: StoredCase,
  runB: string,
  caseB: StoredCase,
): Promise<StoredCaseComparison["divergence"]> {
  // The trial that shows the change on each side: A's passing one against B's failing one, or the
  // other way round when the case improved.
  const pick = (c: StoredCase, passed: boolean) =>
    c.trials.find((t) => (t.status === "passed") === passed) ?? c.trials[0];
  const trialA = pick(caseA, caseA.status === "passed");
  const trialB = pick(caseB, caseB.status === "passed");
  if (trialA?.trial == null || trialB?.trial == null) return undefined;
  const aKey = { run_id: runA, position: caseA.position, trial: trialA.trial };
  const bKey = { run_id: runB, position: caseB.position, trial: trialB.trial };
  const divergence = await firstDivergence(store, aKey, bKey);
  return divergence ? { ...divergence, a_trial: aKey, b_trial: bKey } : undefined;
}

function info(row: StoredRunInfo): StoredRunInfo {
  return { ...row, finished_at: new Date(row.finished_at).toISOString() };
}
