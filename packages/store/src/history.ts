import { formatPercent, wilsonInterval } from "@evals/logging/stats";
import type { CaseHistory, CaseRun, HistoryQuery } from "./history-types.js";
import type { Store } from "./store.js";

/**
 * Per case, its verdicts over the last runs that ran it: whole runs only (not one shard of a run:
 * its merged run counts), skipped cases left out, every case sorted by suite then id.
 */
export async function caseHistory(store: Store, query: HistoryQuery = {}): Promise<CaseHistory[]> {
  const params: unknown[] = [query.last ?? 20];
  // Each case's last runs, newest first, read off the cases_history index (its WHERE is this one's).
  const runsWhere = ["c.suite = k.suite", "c.case_id = k.case_id", "c.whole_run", "c.status <> 'skipped'"];
  const keysWhere: string[] = [];
  if (query.since) {
    params.push(query.since.toISOString());
    runsWhere.push(`c.finished_at >= $${params.length}`);
  }
  if (query.cases && query.cases.length > 0) {
    params.push(query.cases);
    keysWhere.push(`k.case_id = ANY($${params.length})`);
  }
  // Each run as "<run number> <status> <passed trials> <trials>", oldest first: text is what
  // PostgreSQL builds and hands over fastest (JSON took twice as long, cold), and the run's number
  // (runs.seq) is a few bytes where its id is 32; the runs are read once, after.
  const rows = await store.sql.query<{ suite: string; case_id: string; runs: string }>(
    `SELECT k.suite, k.case_id, recent.runs FROM case_keys k
     CROSS JOIN LATERAL (
       SELECT string_agg(concat_ws(' ', last.run_seq, last.status, last.passed_trials, last.trial_count), ','
                         ORDER BY last.finished_at, last.run_id) AS runs
       FROM (SELECT c.run_seq, c.run_id, c.finished_at, c.status, c.passed_trials, c.trial_count FROM cases c
             WHERE ${runsWhere.join(" AND ")}
             ORDER BY c.finished_at DESC LIMIT $1) last
     ) recent
     WHERE recent.runs IS NOT NULL${keysWhere.map((w) => ` AND ${w}`).join("")}
     ORDER BY k.suite, k.case_id`,
    params,
  );
  const parsed = rows.map((row) => ({
    row,
    runs: row.runs.split(",").map((run) => run.split(" ") as [string, string, string, string]),
  }));
  const runsBySeq = await storedRuns(store, new Set(parsed.flatMap(({ runs }) => runs.map(([seq]) => seq))));
  return parsed.map(({ row, runs: fields }) => {
    const runs = fields.map(([seq, status, passed_trials, trial_count]): CaseRun => {
      const run = runsBySeq.get(seq)!;
      return {
        run_id: run.id,
        finished_at: run.finished_at,
        git_commit: run.git_commit,
        status,
        passed_trials: Number(passed_trials),
        trial_count: Number(trial_count),
      };
    });
    const passed = runs.filter((run) => run.status === "passed").length;
    const [ci_low, ci_high] = wilsonInterval(passed, runs.length);
    return {
      suite: row.suite === "" ? null : row.suite,
      case_id: row.case_id,
      runs,
      passed,
      pass_rate: runs.length === 0 ? 0 : passed / runs.length,
      ci_low,
      ci_high,
    };
  });
}

interface StoredRunRef {
  id: string;
  finished_at: string;
  git_commit: string | null;
}

/** These runs (by number), each with its id, end and commit: one query for all of them. */
async function storedRuns(store: Store, seqs: Set<string>): Promise<Map<string, StoredRunRef>> {
  if (seqs.size === 0) return new Map();
  const rows = await store.sql.query<{
    seq: number;
    id: string;
    finished_at: Date | string;
    git_commit: string | null;
  }>("SELECT seq, id, finished_at, git_commit FROM runs WHERE seq = ANY($1::integer[])", [
    [...seqs].map(Number),
  ]);
  return new Map(
    rows.map((row) => [
      String(row.seq),
      { id: row.id, finished_at: new Date(row.finished_at).toISOString(), git_commit: row.git_commit },
    ]),
  );
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
