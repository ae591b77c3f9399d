import { readHistoryDigest, writeHistoryDigest } from "./history-digest.js";
import type { Store } from "./store.js";

/**
 * Writes the embedded database's history digest from the database when it has none of this version
 * (a write set it aside and was killed, a migration, an older digest), so that the next `evals
 * history` answers from it. Call it with the store open: the lock keeps the writers out meanwhile.
 */
export async function refreshHistoryDigest(store: Store): Promise<void> {
  const file = store.digestFile;
  if (!file || readHistoryDigest(file)) return;
  // Each run's verdicts as JSON text built by PostgreSQL, one row per run: a row per case (100,000
  // for 100 runs of 1,000 cases) cost ~4x more CPU to hand over and collect.
  const rows = await store.sql.query<{
    id: string;
    finished_at: Date | string;
    git_commit: string | null;
    cases: string;
  }>(
    `SELECT r.id, r.finished_at, r.git_commit,
            string_agg(json_build_array(c.suite, c.case_id, c.status, c.passed_trials, c.trial_count)::text, ','
                       ORDER BY c.position) AS cases
     FROM runs r JOIN cases c ON c.run_id = r.id
     WHERE c.whole_run AND c.status <> 'skipped'
     GROUP BY r.seq, r.id, r.finished_at, r.git_commit
     ORDER BY r.seq`,
  );
  writeHistoryDigest(
    file,
    rows.map(
      (row) =>
        `{"id":${JSON.stringify(row.id)},"finished_at":"${new Date(row.finished_at).toISOString()}","git_commit":${JSON.stringify(row.git_commit)},"cases":[${row.cases}]}`,
    ),
  );
}
