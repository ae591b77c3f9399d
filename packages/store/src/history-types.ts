// What `evals history` answers, from the database (history.ts) or its digest (history-digest.ts).

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
