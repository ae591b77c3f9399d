import { firstDivergence, type StepDivergence, type TrialKey } from "./step-divergence.js";
import type { Store } from "./store.js";

export interface FlakyQuery {
  /** Only these case ids (default: every case). */
  cases?: string[];
  /** Only runs that finished at or after this time. */
  since?: Date;
  /** Each case over its last `last` runs (default 20). */
  last?: number;
}

/** One run of a flaky case: which of its trials passed and which failed. */
export interface FlakyRun {
  run_id: string;
  finished_at: string;
  git_commit: string | null;
  passed_trials: number[];
  failed_trials: number[];
}

/**
 * A case whose verdict differs across runs (or trials) that ran the same thing: the same case file
 * (`code_hash`), the same agent CLI and version, the same model (the recorded one when replayed) and
 * the same origin (live, or replayed from a recording: the same recording, when the results name it).
 */
export interface FlakyCase {
  suite: string | null;
  case_id: string;
  code_hash: string;
  agent_cli: string | null;
  agent_version: string | null;
  model: string | null;
  /** live, or replayed (replay, cassette or stored: the model's side came from a recording). */
  origin: "live" | "replayed";
  /** The recording the replayed runs replayed (relative to where they ran), when the results named it. */
  recording: string | null;
  passed: number;
  failed: number;
  /** The runs, oldest first. */
  runs: FlakyRun[];
  /**
   * Where the first failing trial's trajectory left the last passing trial's (a: the passing trial,
   * b: the failing one); undefined when both made the same calls (the verdict changed without the
   * trajectory changing) or when the trials' steps were not recorded.
   */
  divergence?: StepDivergence & { passing: TrialKey; failing: TrialKey };
}

interface TrialRow {
  suite: string | null;
  case_id: string;
  code_hash: string;
  agent_cli: string | null;
  agent_version: string | null;
  model: string | null;
  origin: "live" | "replayed";
  recording: string | null;
  run_id: string;
  finished_at: string | Date;
  git_commit: string | null;
  position: number;
  trial: number;
  status: "passed" | "failed";
}

/**
 * The flaky cases of the database: per case and what it ran (see FlakyCase), over its last runs,
 * the groups where some trial passed and another failed. Trials that errored (an infrastructure
 * failure: the API, a timeout) are no verdict and count neither way; runs of a case file that could
 * not be read when recorded (no code_hash) are left out. Sorted by suite, then case id.
 */
export async function findFlakyCases(store: Store, query: FlakyQuery = {}): Promise<FlakyCase[]> {
  const params: unknown[] = [query.last ?? 20];
  const where = ["r.complete", "r.shard_index IS NULL", "c.code_hash IS NOT NULL"];
  if (query.since) {
    params.push(query.since.toISOString());
    where.push(`r.finished_at >= $${params.length}`);
  }
  if (query.cases && query.cases.length > 0) {
    params.push(query.cases);
    where.push(`c.case_id = ANY($${params.length})`);
  }
  const rows = await store.sql.query<TrialRow>(
    `WITH recent AS (
       SELECT c.*, r.git_commit, r.agent_cli AS run_agent_cli,
              r.agent_version AS run_agent_version, coalesce(r.model, r.recorded_model) AS run_model,
              row_number() OVER (PARTITION BY c.suite, c.case_id ORDER BY r.finished_at DESC, r.id) AS n
       FROM cases c JOIN runs r ON r.id = c.run_id
       WHERE ${where.join(" AND ")}
     )
     SELECT c.suite, c.case_id, c.code_hash,
            coalesce(t.agent_cli, c.run_agent_cli) AS agent_cli,
            coalesce(t.agent_version, c.run_agent_version) AS agent_version,
            coalesce(t.model, c.run_model) AS model,
            CASE WHEN t.origin = 'live' THEN 'live' ELSE 'replayed' END AS origin,
            CASE WHEN t.origin = 'live' THEN NULL ELSE t.recording END AS recording,
            c.run_id, c.finished_at, c.git_commit, c.position, t.trial, t.status
     FROM recent c JOIN trials t ON t.run_id = c.run_id AND t.position = c.position
     WHERE c.n <= $1 AND t.status IN ('passed', 'failed')
     ORDER BY c.suite NULLS FIRST, c.case_id, c.finished_at, c.run_id, t.trial`,
    params,
  );
  const groups = new Map<string, TrialRow[]>();
  for (const row of rows) {
    const key = JSON.stringify([
      row.suite,
      row.case_id,
      row.code_hash,
      row.agent_cli,
      row.agent_version,
      row.model,
      row.origin,
      row.recording,
    ]);
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  const flaky: FlakyCase[] = [];
  for (const trials of groups.values()) {
    const passing = trials.filter((t) => t.status === "passed");
    const failing = trials.filter((t) => t.status === "failed");
    if (passing.length === 0 || failing.length === 0) continue;
    flaky.push(await flakyCase(store, trials, passing.at(-1)!, failing[0]!));
  }
  return flaky;
}

async function flakyCase(
  store: Store,
  trials: TrialRow[],
  lastPassing: TrialRow,
  firstFailing: TrialRow,
): Promise<FlakyCase> {
  const [first] = trials as [TrialRow];
  const runs = new Map<string, FlakyRun>();
  for (const t of trials) {
    let run = runs.get(t.run_id);
    if (!run) {
      run = {
        run_id: t.run_id,
        finished_at: new Date(t.finished_at).toISOString(),
        git_commit: t.git_commit,
        passed_trials: [],
        failed_trials: [],
      };
      runs.set(t.run_id, run);
    }
    (t.status === "passed" ? run.passed_trials : run.failed_trials).push(t.trial);
  }
  const passing = keyOf(lastPassing);
  const failing = keyOf(firstFailing);
  const divergence = await firstDivergence(store, passing, failing);
  return {
    suite: first.suite,
    case_id: first.case_id,
    code_hash: first.code_hash,
    agent_cli: first.agent_cli,
    agent_version: first.agent_version,
    model: first.model,
    origin: first.origin,
    recording: first.recording,
    passed: trials.filter((t) => t.status === "passed").length,
    failed: trials.filter((t) => t.status === "failed").length,
    runs: [...runs.values()],
    ...(divergence ? { divergence: { ...divergence, passing, failing } } : {}),
  };
}

function keyOf(row: TrialRow): TrialKey {
  return { run_id: row.run_id, position: row.position, trial: row.trial };
}

/** The flaky cases as text: per case, what it ran, each run's passed and failed trials, the divergence. */
export function formatFlaky(flaky: FlakyCase[]): string {
  if (flaky.length === 0)
    return "No flaky cases: every case's verdict was the same across its recorded runs.\n";
  const lines: string[] = [];
  for (const c of flaky) {
    const name = c.suite ? `${c.suite} › ${c.case_id}` : c.case_id;
    lines.push(
      `${name}: flaky, ${c.passed} trial(s) passed and ${c.failed} failed over ${c.runs.length} run(s) of the same case file (${c.code_hash}), ${c.origin}${c.recording ? ` from ${c.recording}` : ""}, ${c.agent_cli ?? "agent ?"} ${c.agent_version ?? ""} ${c.model ?? ""}`.replace(
        /\s+$/,
        "",
      ),
    );
    for (const run of c.runs) {
      const trials = [
        ...(run.passed_trials.length > 0 ? [`passed trial ${run.passed_trials.join(", ")}`] : []),
        ...(run.failed_trials.length > 0 ? [`failed trial ${run.failed_trials.join(", ")}`] : []),
      ];
      lines.push(
        `  run ${run.run_id} (${run.finished_at}${run.git_commit ? `, ${run.git_commit.slice(0, 12)}` : ""}): ${trials.join("; ")}`,
      );
    }
    const d = c.divergence;
    const call = (step: { tool: string; input: unknown } | null) =>
      step ? `${step.tool} ${JSON.stringify(step.input)}` : "nothing (its trajectory had ended)";
    lines.push(
      d
        ? `  diverges at step ${d.step + 1}: failing run ${d.failing.run_id} trial ${d.failing.trial} called ${call(d.b)}, passing run ${d.passing.run_id} trial ${d.passing.trial} called ${call(d.a)}`
        : "  same trajectory in passing and failing trials (or no steps recorded): the verdict changed without the calls changing",
    );
  }
  return `${lines.join("\n")}\n`;
}
