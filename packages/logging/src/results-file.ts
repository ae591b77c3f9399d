import { AgentRunResultSchema } from "@evals/core";
import { z } from "zod";
import { type CaseResult, CaseResultSchema } from "./case-result.js";
import { countViolations } from "./case-summary.js";
import { RESULTS_VERSION } from "./format-version.js";

/** Counts of cases by status, and the pass rate over the cases that ran (skipped ones excluded). */
export const TallySchema = z.object({
  total: z.number().int().nonnegative(),
  passed: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  errored: z.number().int().nonnegative(),
  skipped: z.number().int().nonnegative(),
  /** passed / (total - skipped); 0 when nothing ran. */
  pass_rate: z.number().min(0).max(1),
});
export type Tally = z.infer<typeof TallySchema>;

/**
 * Which part of a run split across machines a results file holds (`evals run --shard`, or
 * EVALS_SHARD): shard `index` of `count`, and where each of its cases stands in the whole run.
 * `mergeShardResults` puts the shards' cases back in that order; a merged or unsharded file has none.
 */
export const ResultsShardSchema = z.object({
  /** 1-based. */
  index: z.number().int().positive(),
  count: z.number().int().positive(),
  /** The 0-based position in the whole run of each case of the file, in the order of `cases`. */
  positions: z.array(z.number().int().nonnegative()),
});
export type ResultsShard = z.infer<typeof ResultsShardSchema>;

export const ResultsMetaSchema = z.object({
  /** What the run is called: the suite's name, or the project's when it ran several suites. */
  suite: z.string(),
  /** Every suite in the file, in order. */
  suites: z.array(z.string()),
  started_at: z.string(),
  finished_at: z.string(),
  git_commit: z.string().optional(),
  git_branch: z.string().optional(),
  /** The working tree had uncommitted changes. */
  git_dirty: z.boolean().optional(),
  claude_version: z.string().optional(),
  /** The models called in this eval run (by live runs). */
  model: z.string().optional(),
  /** The models named by replayed or stored runs: what the recordings used, not called in this eval run. */
  recorded_model: z.string().optional(),
  /** How many trials came from where (live, replay, cassette, stored), when any trial says. */
  origins: z.partialRecord(AgentRunResultSchema.shape.origin, z.number().int().nonnegative()).optional(),
  node_version: z.string(),
  platform: z.string(),
  /** Ran under CI (the CI environment variable was set). */
  ci: z.boolean(),
  /** Whether trials' runs were kept in this file: all of them, those of failed cases, or none. */
  runs_included: z.enum(["all", "failed", "none"]),
  /** Set on the results of one shard of a run split across machines (see ResultsShardSchema). */
  shard: ResultsShardSchema.optional(),
  /**
   * Set on one variant's results in a with/without comparison: its name, and whether its failing
   * cases fail the run (false for a baseline, `mustPass: false`).
   */
  variant: z.object({ name: z.string(), gated: z.boolean() }).strict().optional(),
});
export type ResultsMeta = z.infer<typeof ResultsMetaSchema>;

export const ResultsSummarySchema = TallySchema.extend({
  duration_ms: z.number().nonnegative(),
  /** Total cost of the runs whose cost is known and was spent in this eval run (live runs). */
  cost_usd: z.number().nonnegative().optional(),
  trials: z.number().int().nonnegative(),
  /** Violations by severity; those the cases expected (`expected: true`) are counted apart, not as errors. */
  violations: z.object({
    error: z.number().int().nonnegative(),
    warning: z.number().int().nonnegative(),
    info: z.number().int().nonnegative(),
    expected: z.number().int().nonnegative().optional(),
  }),
});
export type ResultsSummary = z.infer<typeof ResultsSummarySchema>;

/** `results/latest.json` and every file under `results/history/`. */
export const ResultsFileSchema = z.object({
  version: z.literal(RESULTS_VERSION),
  meta: ResultsMetaSchema,
  summary: ResultsSummarySchema,
  by_tag: z.record(z.string(), TallySchema),
  by_suite: z.record(z.string(), TallySchema),
  cases: z.array(CaseResultSchema),
});
export type ResultsFile = z.infer<typeof ResultsFileSchema>;

export function tally(cases: Pick<CaseResult, "status">[]): Tally {
  const count = (status: CaseResult["status"]) => cases.filter((c) => c.status === status).length;
  const passed = count("passed");
  const skipped = count("skipped");
  const ran = cases.length - skipped;
  return {
    total: cases.length,
    passed,
    failed: count("failed"),
    errored: count("error"),
    skipped,
    pass_rate: ran === 0 ? 0 : passed / ran,
  };
}

export function summarize(cases: CaseResult[], durationMs: number): ResultsSummary {
  const costs = cases.map((c) => c.cost_usd).filter((cost): cost is number => cost !== undefined);
  const violations = countViolations(cases.flatMap((c) => c.violations));
  return {
    ...tally(cases),
    duration_ms: durationMs,
    ...(costs.length > 0 ? { cost_usd: costs.reduce((sum, cost) => sum + cost, 0) } : {}),
    trials: cases.reduce((sum, c) => sum + c.trials.length, 0),
    violations,
  };
}

/** Tallies of the cases grouped by a key (each tag, or the suite); a case may count in several groups. */
export function tallyBy(cases: CaseResult[], keys: (c: CaseResult) => string[]): Record<string, Tally> {
  const groups = new Map<string, CaseResult[]>();
  for (const c of cases) {
    for (const key of new Set(keys(c))) {
      const group = groups.get(key) ?? [];
      group.push(c);
      groups.set(key, group);
    }
  }
  return Object.fromEntries(
    [...groups].sort(([a], [b]) => a.localeCompare(b)).map(([k, g]) => [k, tally(g)]),
  );
}
