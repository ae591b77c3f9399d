import { appendFileSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { wilsonInterval } from "@evals/logging/stats";
import type { CaseHistory, CaseRun, HistoryQuery } from "./history-types.js";

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
    const runs = lines.slice(1).map((line) => JSON.parse(line) as DigestRun);
    return runs.every(isDigestRun) ? runs : undefined;
  } catch {
    return undefined;
  }
}

/** A line of the digest's shape (checked by hand: the reader loads no schema library). */
function isDigestRun(run: DigestRun): boolean {
  return (
    typeof run?.id === "string" &&
    typeof run.finished_at === "string" &&
    (run.git_commit === null || typeof run.git_commit === "string") &&
    Array.isArray(run.cases) &&
    run.cases.every(
      (v) =>
        Array.isArray(v) &&
        v.length === 5 &&
        typeof v[0] === "string" &&
        typeof v[1] === "string" &&
        typeof v[2] === "string" &&
        typeof v[3] === "number" &&
        typeof v[4] === "number",
    )
  );
}

/** The digest's line of a run. */
function digestLine(run: DigestRun): string {
  return `${JSON.stringify(run)}\n`;
}

/**
 * Writes the whole digest anew from its runs' lines, each a DigestRun as JSON (to a temporary file
 * first, so a reader sees the old or the new).
 */
export function writeHistoryDigest(file: string, lines: string[]): void {
  writeFileSync(`${file}.tmp`, `${HEADER}\n${lines.map((line) => `${line}\n`).join("")}`);
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
    try {
      if (stale) throw new Error("stale");
      if (append) appendFileSync(writing, digestLine(append));
      renameSync(writing, file);
    } catch {
      // Stale, or it could not be kept (a full disk): none, and the next reader writes it anew.
      rmSync(writing, { force: true });
    }
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
  const since = query.since?.getTime() ?? Number.NEGATIVE_INFINITY;
  const wanted = query.cases && query.cases.length > 0 ? new Set(query.cases) : undefined;
  // The runs newest first (as the database orders them: end, then id); each case takes its first
  // `last`. Only those become objects: a fresh process spends its time collecting garbage otherwise.
  const newestFirst = runs
    .map((run) => ({ run, at: Date.parse(run.finished_at) }))
    .filter(({ at }) => at >= since)
    .sort((a, b) => b.at - a.at || compareBytes(b.run.id, a.run.id));
  const bySuite = new Map<string, Map<string, CaseRun[]>>();
  for (const { run } of newestFirst) {
    for (const [suite, caseId, status, passed_trials, trial_count] of run.cases) {
      if (wanted && !wanted.has(caseId)) continue;
      let byCase = bySuite.get(suite);
      if (!byCase) {
        byCase = new Map();
        bySuite.set(suite, byCase);
      }
      let caseRuns = byCase.get(caseId);
      if (!caseRuns) {
        caseRuns = [];
        byCase.set(caseId, caseRuns);
      }
      if (caseRuns.length < last)
        caseRuns.push({
          run_id: run.id,
          finished_at: run.finished_at,
          git_commit: run.git_commit,
          status,
          passed_trials,
          trial_count,
        });
    }
  }
  // The database's order: suite, then case id (bytewise, its "C" collation).
  const histories: CaseHistory[] = [];
  for (const suite of [...bySuite.keys()].sort(compareBytes)) {
    const byCase = bySuite.get(suite)!;
    for (const case_id of [...byCase.keys()].sort(compareBytes)) {
      const caseRuns = byCase.get(case_id)!.reverse();
      const passed = caseRuns.filter((run) => run.status === "passed").length;
      const [ci_low, ci_high] = wilsonInterval(passed, caseRuns.length);
      histories.push({
        suite: suite === "" ? null : suite,
        case_id,
        runs: caseRuns,
        passed,
        pass_rate: caseRuns.length === 0 ? 0 : passed / caseRuns.length,
        ci_low,
        ci_high,
      });
    }
  }
  return histories;
}

/** UTF-8 byte order: JavaScript's own (UTF-16 units) but for characters from U+D800 up. */
function compareBytes(a: string, b: string): number {
  if (a === b) return 0;
  if (BEYOND_BMP_ORDER.test(a) || BEYOND_BMP_ORDER.test(b))
    return Buffer.compare(Buffer.from(a), Buffer.from(b));
  return a < b ? -1 : 1;
}

const BEYOND_BMP_ORDER = /[\uD800-\uFFFF]/;
