import { createHash } from "node:crypto";
import type { Run } from "@evals/core";
import type { CaseResult, ResultsFile, TrialResult } from "@evals/logging";
import { caseCodeHash } from "./code-hash.js";

/** What recorded a run. */
export type RunSource = "run" | "record" | "vitest" | "merge" | "import";

/** Where a run's files are, as the harness wrote them. */
export interface RunFiles {
  /** The results folder (latest.json's). */
  dir?: string;
  /** The history copy of latest.json (latest.json itself is overwritten by the next run). */
  history?: string;
  html?: string;
}

/**
 * The rows of one run, table by table, keyed by column name (see schema.ts). The rows below the run
 * leave out its id (`run_id`): Store.record gives it once per table, not once per row.
 */
export interface RunRows {
  run: Record<string, unknown>;
  cases: Record<string, unknown>[];
  trials: Record<string, unknown>[];
  scores: Record<string, unknown>[];
  violations: Record<string, unknown>[];
  steps: Record<string, unknown>[];
}

/**
 * A run's id: a hash of what identifies it (its suite, times, shard, variant and cases' verdicts),
 * so the same results recorded twice (the run, then `evals history import` of its file) are one run.
 */
export function runId(results: ResultsFile): string {
  const { meta } = results;
  const identity = JSON.stringify([
    meta.suite,
    meta.started_at,
    meta.finished_at,
    meta.shard?.index,
    meta.shard?.count,
    meta.variant?.name,
    results.cases.map((c) => [c.id, c.status, c.trials.length]),
  ]);
  return createHash("sha256").update(identity).digest("hex").slice(0, 32);
}

export function runRows(
  results: ResultsFile,
  source: RunSource,
  files: RunFiles = {},
  mergedShards?: number,
): RunRows {
  const id = runId(results);
  const { meta, summary } = results;
  const firstRun = results.cases.flatMap((c) => c.trials).find((t) => t.run)?.run;
  const rows: RunRows = { run: {}, cases: [], trials: [], scores: [], violations: [], steps: [] };
  rows.run = {
    id,
    source,
    suite: meta.suite,
    suites: meta.suites,
    started_at: meta.started_at,
    finished_at: meta.finished_at,
    git_commit: meta.git_commit ?? null,
    git_branch: meta.git_branch ?? null,
    git_dirty: meta.git_dirty ?? null,
    agent_cli: firstRun ? agentCli(firstRun) : meta.claude_version ? "claude-code" : null,
    agent_version: (firstRun ? agentVersion(firstRun) : undefined) ?? meta.claude_version ?? null,
    model: meta.model ?? null,
    recorded_model: meta.recorded_model ?? null,
    variant: meta.variant?.name ?? null,
    variant_gated: meta.variant?.gated ?? null,
    shard_index: meta.shard?.index ?? null,
    shard_count: meta.shard?.count ?? null,
    merged_shards: mergedShards ?? null,
    ci: meta.ci,
    node_version: meta.node_version,
    platform: meta.platform,
    case_count: summary.total,
    case_set: createHash("sha256")
      .update(JSON.stringify(results.cases.map((c) => [c.suite ?? "", c.id])))
      .digest("hex")
      .slice(0, 16),
    passed: summary.passed,
    failed: summary.failed,
    errored: summary.errored,
    skipped: summary.skipped,
    trial_count: summary.trials,
    duration_ms: summary.duration_ms,
    cost_usd: summary.cost_usd ?? null,
    results_version: results.version,
    results_dir: files.dir ?? null,
    results_file: files.history ?? null,
    report_file: files.html ?? null,
    complete: false,
  };
  const copied = { finished_at: meta.finished_at, whole_run: meta.shard === undefined };
  // A case file is relative to the project: where the command ran, or above the results folder.
  const roots = [process.cwd(), ...(files.dir ? [`${files.dir}/..`] : [])];
  const read = new Map<string, Buffer | undefined>();
  for (const [position, c] of results.cases.entries()) addCase(rows, position, c, copied, roots, read);
  return rows;
}

function addCase(
  rows: RunRows,
  position: number,
  c: CaseResult,
  copied: { finished_at: string; whole_run: boolean },
  roots: string[],
  read: Map<string, Buffer | undefined>,
): void {
  const key = { position };
  rows.cases.push({
    ...key,
    case_id: c.id,
    name: c.name,
    suite: c.suite ?? "",
    ...copied,
    file: c.file ?? null,
    tags: c.tags,
    status: c.status,
    trial_count: c.trials.length,
    passed_trials: c.trials.filter((t) => t.status === "passed").length,
    duration_ms: c.duration_ms,
    cost_usd: c.cost_usd ?? null,
    error: c.error ?? null,
    code_hash: caseCodeHash(c, roots, read) ?? null,
  });
  for (const trial of c.trials) addTrial(rows, key, trial);
  c.violations.forEach((v, seq) => {
    rows.violations.push({
      ...key,
      seq,
      trial: v.trial ?? null,
      scorer: v.scorer ?? null,
      rule: v.rule,
      type: v.type,
      severity: v.severity,
      message: v.message,
      expected: v.expected === true,
      pointer: v.pointer ?? null,
    });
  });
}

function addTrial(rows: RunRows, caseKey: { position: number }, t: TrialResult): void {
  const key = { ...caseKey, trial: t.trial };
  const run = t.run;
  const final = run?.events.findLast((e) => e.type === "final_result");
  const calls = run?.events.filter((e) => e.type === "tool_call") ?? [];
  const results = new Map(
    (run?.events ?? []).flatMap((e) => (e.type === "tool_result" ? [[e.id, e.is_error] as const] : [])),
  );
  rows.trials.push({
    ...key,
    status: t.status,
    outcome: final ? (final.terminal_reason ?? final.subtype) : null,
    error: t.error ?? null,
    origin: t.origin ?? null,
    // The recording it replayed, or "live" when the model was called.
    recording: t.recording ?? (t.origin === "live" ? "live" : null),
    agent_run_id: t.run_id ?? null,
    run_folder: t.output_dir ?? null,
    agent_cli: run ? agentCli(run) : null,
    agent_version: run ? (agentVersion(run) ?? null) : null,
    model: run?.model ?? null,
    cost_usd: t.cost_usd ?? null,
    recorded_cost_usd: t.recorded_cost_usd ?? null,
    input_tokens: final?.usage?.input_tokens ?? null,
    output_tokens: final?.usage?.output_tokens ?? null,
    cache_read_tokens: final?.usage?.cache_read_input_tokens ?? null,
    turns: final?.num_turns ?? null,
    tool_calls: run ? calls.length : null,
    duration_ms: t.duration_ms ?? null,
  });
  t.scores.forEach((s, seq) => {
    rows.scores.push({
      ...key,
      seq,
      scorer: s.scorer,
      score: s.score,
      passed: s.passed,
      threshold: s.threshold ?? null,
    });
  });
  calls.forEach((call, seq) => {
    rows.steps.push({
      ...key,
      seq,
      event_index: call.index,
      agent: call.agent,
      tool: call.name,
      tool_use_id: call.id,
      input: call.input,
      is_error: results.get(call.id) ?? null,
    });
  });
}

function agentCli(run: Run): string {
  return run.agent ?? "claude-code";
}

function agentVersion(run: Run): string | undefined {
  return run.agent_version ?? run.claude_version;
}
