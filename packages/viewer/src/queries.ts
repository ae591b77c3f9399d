import type { Store } from "@evals/store";

/**
 * The viewer's reads of the results database. Every list is bounded (LIMIT, pages), each read off an
 * index of the schema, so a page stays quick with 100 runs × 1,000 cases.
 */
export interface RunRow {
  id: string;
  source: string;
  suite: string;
  finished_at: string | Date;
  git_branch: string | null;
  git_commit: string | null;
  git_dirty: boolean | null;
  agent_cli: string | null;
  agent_version: string | null;
  model: string | null;
  recorded_model: string | null;
  case_count: number;
  passed: number;
  failed: number;
  errored: number;
  skipped: number;
  trial_count: number;
  duration_ms: number;
  cost_usd: number | null;
  results_dir: string | null;
  report_file: string | null;
}

/** How many characters of a long message (an error, a violation's) the pages read and show. */
const MESSAGE_CHARS = 4000;

/**
 * A text column's first MESSAGE_CHARS characters as `name`, and as `name_more` how many bytes that
 * leaves out: a 20 MB message is not read whole to show its start.
 */
function cutColumn(column: string, name: string): string {
  const shown = `left(${column}, ${MESSAGE_CHARS})`;
  return `${shown} AS ${name}, octet_length(${column}) - octet_length(${shown}) AS ${name}_more`;
}

const RUN_COLUMNS = `id, source, suite, finished_at, git_branch, git_commit, git_dirty, agent_cli, agent_version,
  model, recorded_model, case_count, passed, failed, errored, skipped, trial_count, duration_ms, cost_usd,
  results_dir, report_file`;
/** Whole, finished runs: one shard of a run is left out (the run evals merge joined counts). */
const WHOLE_RUN = "complete AND shard_index IS NULL";

/** The share of a run's cases that passed, skipped ones left out; null when none had a verdict. */
export function runPassRate(run: Pick<RunRow, "passed" | "failed" | "errored">): number | null {
  const judged = run.passed + run.failed + run.errored;
  return judged === 0 ? null : run.passed / judged;
}

export async function countRuns(store: Store): Promise<number> {
  const [row] = await store.sql.query<{ n: number | string }>(
    `SELECT count(*) AS n FROM runs WHERE ${WHOLE_RUN}`,
  );
  return Number(row?.n ?? 0);
}

/** One page of runs, newest first. */
export async function listRuns(store: Store, offset: number, limit: number): Promise<RunRow[]> {
  return store.sql.query<RunRow>(
    `SELECT ${RUN_COLUMNS} FROM runs WHERE ${WHOLE_RUN} ORDER BY finished_at DESC, id LIMIT $1 OFFSET $2`,
    [limit, offset],
  );
}

export async function findRun(store: Store, id: string): Promise<RunRow | undefined> {
  const [row] = await store.sql.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1 AND complete`, [
    id,
  ]);
  return row;
}

/**
 * The run that finished after `run` and names the same report file, when one does: every run of a
 * results folder rewrites its report.html, so the file is then that later run's, not `run`'s.
 */
export async function laterRunOfReport(store: Store, run: RunRow): Promise<string | undefined> {
  if (!run.report_file) return undefined;
  const [row] = await store.sql.query<{ id: string }>(
    `SELECT id FROM runs WHERE complete AND report_file = $1 AND id <> $2 AND finished_at > $3
     ORDER BY finished_at DESC, id LIMIT 1`,
    [run.report_file, run.id, run.finished_at],
  );
  return row?.id;
}

export interface CaseRow {
  position: number;
  case_id: string;
  name: string;
  suite: string;
  status: string;
  trial_count: number;
  passed_trials: number;
  duration_ms: number;
  cost_usd: number | null;
  error: string | null;
  /** How many bytes of `error` were left out (null: no error). */
  error_more: number | null;
}

export interface ViolationRow {
  position: number;
  seq: number;
  trial: number | null;
  rule: string;
  type: string;
  severity: string;
  message: string;
  /** How many bytes of `message` were left out. */
  message_more: number;
  expected: boolean;
}

const VIOLATION_COLUMNS = `position, seq, trial, rule, type, severity, ${cutColumn("message", "message")}, expected`;

/** One page of a run's cases in run order; `onlyNotPassed` keeps the failed and errored ones. */
export async function runCases(
  store: Store,
  runId: string,
  onlyNotPassed: boolean,
  offset: number,
  limit: number,
): Promise<{ total: number; cases: CaseRow[]; violations: ViolationRow[] }> {
  const filter = onlyNotPassed ? "AND status IN ('failed', 'error')" : "";
  const [count] = await store.sql.query<{ n: number | string }>(
    `SELECT count(*) AS n FROM cases WHERE run_id = $1 ${filter}`,
    [runId],
  );
  const cases = await store.sql.query<CaseRow>(
    `SELECT position, case_id, name, suite, status, trial_count, passed_trials, duration_ms, cost_usd,
       ${cutColumn("error", "error")}
     FROM cases WHERE run_id = $1 ${filter} ORDER BY position LIMIT $2 OFFSET $3`,
    [runId, limit, offset],
  );
  const violations = await caseViolations(
    store,
    runId,
    cases.map((c) => c.position),
  );
  return { total: Number(count?.n ?? 0), cases, violations };
}

export async function caseViolations(
  store: Store,
  runId: string,
  positions: number[],
): Promise<ViolationRow[]> {
  if (positions.length === 0) return [];
  return store.sql.query<ViolationRow>(
    `SELECT ${VIOLATION_COLUMNS} FROM violations
     WHERE run_id = $1 AND position = ANY($2::int[]) ORDER BY position, seq`,
    [runId, positions],
  );
}

export interface CaseRunRow {
  run_id: string;
  position: number;
  name: string;
  finished_at: string | Date;
  git_branch: string | null;
  git_commit: string | null;
  status: string;
  trial_count: number;
  passed_trials: number;
}

/** A case's last `limit` whole runs, newest first (off the cases_history index). */
export async function caseRuns(
  store: Store,
  suite: string,
  caseId: string,
  limit: number,
): Promise<CaseRunRow[]> {
  return store.sql.query<CaseRunRow>(
    `SELECT c.run_id, c.position, c.name, c.finished_at, r.git_branch, r.git_commit, c.status, c.trial_count,
            c.passed_trials
     FROM cases c JOIN runs r ON r.id = c.run_id
     WHERE c.suite = $1 AND c.case_id = $2 AND c.whole_run AND c.status <> 'skipped'
     ORDER BY c.finished_at DESC, c.run_id LIMIT $3`,
    [suite, caseId, limit],
  );
}

export interface TrialRow {
  run_id: string;
  position: number;
  trial: number;
  status: string;
  outcome: string | null;
  error: string | null;
  /** How many bytes of `error` were left out (null: no error). */
  error_more: number | null;
  origin: string | null;
  /** The recording the trial replayed (relative to where it ran), or "live". */
  recording: string | null;
  run_folder: string | null;
  cost_usd: number | null;
  input_tokens: number | string | null;
  output_tokens: number | string | null;
  turns: number | null;
  tool_calls: number | null;
  duration_ms: number | null;
}

const TRIAL_COLUMNS = `run_id, position, trial, status, outcome, ${cutColumn("error", "error")}, origin, recording, run_folder, cost_usd, input_tokens,
  output_tokens, turns, tool_calls, duration_ms`;

export async function findTrial(
  store: Store,
  runId: string,
  position: number,
  trial: number,
): Promise<(TrialRow & { case_id: string; name: string; suite: string }) | undefined> {
  const [row] = await store.sql.query<TrialRow & { case_id: string; name: string; suite: string }>(
    `SELECT t.run_id, t.position, t.trial, t.status, t.outcome, ${cutColumn("t.error", "error")}, t.origin, t.recording, t.run_folder, t.cost_usd,
            t.input_tokens, t.output_tokens, t.turns, t.tool_calls, t.duration_ms, c.case_id, c.name, c.suite
     FROM trials t JOIN cases c ON c.run_id = t.run_id AND c.position = t.position
     WHERE t.run_id = $1 AND t.position = $2 AND t.trial = $3`,
    [runId, position, trial],
  );
  return row;
}

/** The trial violations of one case of a run: those of `trial`, and those not tied to a trial. */
export async function trialViolations(
  store: Store,
  runId: string,
  position: number,
  trial: number,
): Promise<ViolationRow[]> {
  return store.sql.query<ViolationRow>(
    `SELECT ${VIOLATION_COLUMNS} FROM violations
     WHERE run_id = $1 AND position = $2 AND (trial = $3 OR trial IS NULL) ORDER BY seq`,
    [runId, position, trial],
  );
}

/** The trials and violations of one case in each of several runs, two queries whatever their number. */
export async function trialsOfCaseRuns(
  store: Store,
  keys: { run_id: string; position: number }[],
): Promise<{ trials: TrialRow[]; violations: (ViolationRow & { run_id: string })[] }> {
  if (keys.length === 0) return { trials: [], violations: [] };
  const params = [keys.map((k) => k.run_id), keys.map((k) => k.position)];
  const keyed = "(run_id, position) IN (SELECT * FROM unnest($1::text[], $2::int[]))";
  const trials = await store.sql.query<TrialRow>(
    `SELECT ${TRIAL_COLUMNS} FROM trials WHERE ${keyed} ORDER BY run_id, position, trial`,
    params,
  );
  const violations = await store.sql.query<ViolationRow & { run_id: string }>(
    `SELECT run_id, ${VIOLATION_COLUMNS} FROM violations
     WHERE ${keyed} ORDER BY run_id, position, seq`,
    params,
  );
  return { trials, violations };
}

/**
 * The whole of one stored message: a case's error, one of its trials' (`trial`), or one of its
 * violations' (`violation`, its seq); undefined when there is none.
 */
export async function wholeMessage(
  store: Store,
  runId: string,
  position: number,
  of: { trial?: number; violation?: number },
): Promise<string | undefined> {
  const [row] =
    of.violation !== undefined
      ? await store.sql.query<{ text: string | null }>(
          "SELECT message AS text FROM violations WHERE run_id = $1 AND position = $2 AND seq = $3",
          [runId, position, of.violation],
        )
      : of.trial !== undefined
        ? await store.sql.query<{ text: string | null }>(
            "SELECT error AS text FROM trials WHERE run_id = $1 AND position = $2 AND trial = $3",
            [runId, position, of.trial],
          )
        : await store.sql.query<{ text: string | null }>(
            "SELECT error AS text FROM cases WHERE run_id = $1 AND position = $2",
            [runId, position],
          );
  return row?.text ?? undefined;
}
