import { appendFileSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { wilsonInterval } from "@evals/logging/stats";
import type { CaseHistory, CaseRun, HistoryQuery } from "./history.js";

/**
 * The history digest: a small file beside the embedded database (`<db>.history.jsonl`) from which
 * `evals history` answers without starting PostgreSQL. It is derived, never the truth: a header
 * line, then one line per whole run with the verdicts of its cases that ran (skipped ones and shards
 * left out, as caseHistory leaves them out). Every write to the database first sets it aside and,
 * after the commit, appends the new run and puts it back, or deletes it (a run recorded again, a
 * migration); a process killed in between so leaves no digest, never a stale one, and the next
 * `evals history` reads the database and writes the digest again.
 */
export const HISTORY_DIGEST_VERSION = 1;

const HEADER = JSON.stringify({ format: "evals-history-digest", version: HISTORY_DIGEST_VERSION });

/** One case's verdict in a run: suite ("" for none), case id, status, passed trials, trials. */
export type DigestVerdict = [suite: string, caseId: string, status: string, passed: number, trials: number];

/** One line of the digest: a whole run and the verdicts of its cases that ran. */
export interface DigestRun {
  id: string;
  /** ISO time, as caseHistory returns it. */
  finished_at: string;
  git_commit: string | null;
  cases: DigestVerdict[];
}

/** The digest of the embedded database in `dir`. */
export function historyDigestFile(dir: string): string {
  return `${dir}.history.jsonl`;
}

/**
 * The digest's runs, or undefined when there is none or it is not this version's (then the
 * database answers). A last line without its newline (a writer appending right now) is left out.
 */
export function readHistoryDigest(file: string): DigestRun[] | undefined {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  const lines = text.split("\n");
  if (lines[0] !== HEADER) return undefined;
  lines.pop(); // after the last newline: empty, or a line still being written
  try {
    return lines.slice(1).map((line) => JSON.parse(line) as DigestRun);
  } catch {
    return undefined;
  }
}

/** The digest's line of a run. */
export function digestLine(run: DigestRun): string {
  return `${JSON.stringify(run)}\n`;
}

/** Writes the whole digest anew (to a temporary file first, so a reader sees the old or the new). */
export function writeHistoryDigest(file: string, runs: DigestRun[]): void {
  writeFileSync(`${file}.tmp`, `${HEADER}\n${runs.map(digestLine).join("")}`);
  renameSync(`${file}.tmp`, file);
}

/**
 * Before a write to the database: moves the digest aside (`<file>.writing`). Returns the function
 * that, after the commit, appends the new run's line (if any) and puts it back, or with `stale`
 * deletes it; undefined when there was no digest to keep.
 */
export function setDigestAside(
  file: string,
): ((outcome: { append?: DigestRun; stale?: boolean }) => void) | undefined {
  const writing = `${file}.writing`;
  try {
    renameSync(file, writing);
  } catch {
    return undefined;
  }
  return ({ append, stale }) => {
    if (stale) {
      rmSync(writing, { force: true });
      return;
    }
    if (append) appendFileSync(writing, digestLine(append));
    renameSync(writing, file);
  };
}

/** Deletes the digest (the database changed in a way an append does not say). */
export function removeHistoryDigest(file: string): void {
  rmSync(file, { force: true });
  rmSync(`${file}.writing`, { force: true });
}

/** caseHistory's answer, computed from the digest's runs: the same cases, runs, order and bands. */
export function historyFromDigest(runs: DigestRun[], query: HistoryQuery = {}): CaseHistory[] {
  const last = query.last ?? 20;
  const since = query.since?.getTime();
  const wanted = query.cases && query.cases.length > 0 ? new Set(query.cases) : undefined;
  const byCase = new Map<string, { suite: string; case_id: string; runs: (CaseRun & { at: number })[] }>();
  for (const run of runs) {
    const at = Date.parse(run.finished_at);
    if (since !== undefined && at < since) continue;
    for (const [suite, case_id, status, passed_trials, trial_count] of run.cases) {
      if (wanted && !wanted.has(case_id)) continue;
      const key = `${suite}\u0000${case_id}`;
      let entry = byCase.get(key);
      if (!entry) {
        entry = { suite, case_id, runs: [] };
        byCase.set(key, entry);
      }
      entry.runs.push({
        run_id: run.id,
        finished_at: run.finished_at,
        git_commit: run.git_commit,
        status,
        passed_trials,
        trial_count,
        at,
      });
    }
  }
  // The database's order: suite, then case id (bytewise, its "C" collation).
  const entries = [...byCase.values()].sort(
    (a, b) => compareBytes(a.suite, b.suite) || compareBytes(a.case_id, b.case_id),
  );
  return entries.map((entry) => {
    const runs = entry.runs
      .sort((a, b) => a.at - b.at || compareBytes(a.run_id, b.run_id))
      .slice(-last)
      .map(({ at: _, ...run }) => run);
    const passed = runs.filter((run) => run.status === "passed").length;
    const [ci_low, ci_high] = wilsonInterval(passed, runs.length);
    return {
      suite: entry.suite === "" ? null : entry.suite,
      case_id: entry.case_id,
      runs,
      passed,
      pass_rate: runs.length === 0 ? 0 : passed / runs.length,
      ci_low,
      ci_high,
    };
  });
}

function compareBytes(a: string, b: string): number {
  return a === b ? 0 : Buffer.compare(Buffer.from(a), Buffer.from(b));
}
