import { formatPercent, wilsonInterval } from "@evals/logging";
import type { Store } from "./store.js";

export interface HistoryQuery {
  /** Only these case ids (default: every case). */
  cases?: string[];
  /** Each case over its last `last` runs (default 20). */
  last?: number;
  /** Only runs that finished at or after this time. */
  since?: Date;
}

/** One run of a case: its verdict, and how many of its trials passed. */
export interface CaseRun {
  run_id: string;
  finished_at: string;
  git_commit: string | null;
  status: string;
  passed_trials: number;
  trial_count: number;
}

/** A case over its last runs, oldest first: its pass rate with the 95% Wilson band. */
export interface CaseHistory {
  suite: string | null;
  case_id: string;
  runs: CaseRun[];
  /** Runs whose verdict was passed. */
  passed: number;
  pass_rate: number;
  ci_low: number;
  ci_high: number;
}

/**
 * Per case, its verdicts over the last runs that ran it: whole runs only (not one shard of a run:
 * its merged run counts), skipped cases left out, every case sorted by suite then id.
 */
export async function caseHistory(store: Store, query: HistoryQuery = {}): Promise<CaseHistory[]> {
  const params: unknown[] = [query.last ?? 20];
  const where = ["r.complete", "r.shard_index IS NULL", "c.status <> 'skipped'"];
  if (query.since) {
    params.push(query.since.toISOString());
    where.push(`r.finished_at >= $${params.length}`);
  }
  if (query.cases && query.cases.length > 0) {
    params.push(query.cases);
    where.push(`c.case_id = ANY($${params.length})`);
  }
  const rows = await store.sql.query<CaseRun & { suite: string | null; case_id: string }>(
    `SELECT suite, case_id, run_id, finished_at, git_commit, status, passed_trials, trial_count FROM (
       SELECT c.suite, c.case_id, r.id AS run_id, r.finished_at, r.git_commit, c.status, c.passed_trials,
              c.trial_count,
              row_number() OVER (PARTITION BY c.suite, c.case_id ORDER BY r.finished_at DESC, r.id) AS recent
       FROM cases c JOIN runs r ON r.id = c.run_id
       WHERE ${where.join(" AND ")}
     ) ranked
     WHERE recent <= $1
     ORDER BY suite NULLS FIRST, case_id, finished_at, run_id`,
    params,
  );
  const byCase = new Map<string, CaseHistory>();
  for (const row of rows) {
    const key = JSON.stringify([row.suite, row.case_id]);
    let history = byCase.get(key);
    if (!history) {
      history = {
        suite: row.suite,
        case_id: row.case_id,
        runs: [],
        passed: 0,
        pass_rate: 0,
        ci_low: 0,
        ci_high: 1,
      };
      byCase.set(key, history);
    }
    history.runs.push({
      run_id: row.run_id,
      finished_at: new Date(row.finished_at).toISOString(),
      git_commit: row.git_commit,
      status: row.status,
      passed_trials: row.passed_trials,
      trial_count: row.trial_count,
    });
  }
  for (const history of byCase.values()) {
    const n = history.runs.length;
    history.passed = history.runs.filter((run) => run.status === "passed").length;
    history.pass_rate = n === 0 ? 0 : history.passed / n;
    [history.ci_low, history.ci_high] = wilsonInterval(history.passed, n);
  }
  return [...byCase.values()];
}

const BARS = "▁▂▃▄▅▆▇█";

/**
 * One character per run, oldest first: the share of its trials that passed, from ▁ (none) to █
 * (all); `×` for a run whose case errored.
 */
export function sparkline(runs: CaseRun[]): string {
  return runs
    .map((run) => {
      if (run.status === "error") return "×";
      const share = run.trial_count === 0 ? 0 : run.passed_trials / run.trial_count;
      return BARS[Math.round(share * (BARS.length - 1))];
    })
    .join("");
}

/** The history as a table: case, runs, pass rate, its 95% band, and the sparkline of its runs. */
export function formatHistory(histories: CaseHistory[]): string {
  if (histories.length === 0) return "No recorded runs match.\n";
  const name = (h: CaseHistory) => (h.suite ? `${h.suite} › ${h.case_id}` : h.case_id);
  const rows = histories.map((h) => [
    name(h),
    String(h.runs.length),
    formatPercent(h.pass_rate),
    `${formatPercent(h.ci_low)}–${formatPercent(h.ci_high)}`,
    sparkline(h.runs),
  ]);
  const header = ["case", "runs", "pass rate", "95% band", "runs, oldest first"];
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) =>
        i === 0 || i === cells.length - 1 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!),
      )
      .join("  ")
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join("\n")}\n`;
}
