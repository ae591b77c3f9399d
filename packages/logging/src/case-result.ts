import { AgentRunResultSchema, RunSchema, ViolationSchema } from "@evals/core";
import { z } from "zod";
import { EVAL_TEST_META_VERSION } from "./format-version.js";

/**
 * One eval case's result: what describeEval attaches to a vitest test (`task.meta.evalCase`) and what
 * the JSON results file stores per case. Field names follow @evals/core's file formats (snake_case).
 */

export const CaseStatusSchema = z.enum(["passed", "failed", "error", "skipped"]);
export type CaseStatus = z.infer<typeof CaseStatusSchema>;

/** One scorer's verdict: for one trial, or (on the case) over all its trials. */
export const ScoreSchema = z.object({
  /** The scorer's name, e.g. "trajectory" or "approval-gate". */
  scorer: z.string(),
  /** 0..1; on a case, the mean over its trials. */
  score: z.number().min(0).max(1),
  passed: z.boolean(),
  /** The score this scorer needed, when it had a threshold. */
  threshold: z.number().min(0).max(1).optional(),
});
export type Score = z.infer<typeof ScoreSchema>;

/** A @evals/core violation, with the scorer that reported it and the trial it happened in. */
export const CaseViolationSchema = ViolationSchema.extend({
  scorer: z.string().optional(),
  /** 0-based trial index; its `pointer` points into that trial's run. */
  trial: z.number().int().nonnegative().optional(),
});
export type CaseViolation = z.infer<typeof CaseViolationSchema>;

export const TrialResultSchema = z.object({
  /** 0-based trial index. */
  trial: z.number().int().nonnegative(),
  status: CaseStatusSchema,
  scores: z.array(ScoreSchema),
  violations: z.array(CaseViolationSchema),
  duration_ms: z.number().nonnegative().optional(),
  /** What this trial's run cost, paid in this eval run: only for a live run (see `origin`). */
  cost_usd: z.number().nonnegative().optional(),
  /**
   * What the recording says its run cost, for a run that was replayed (origin replay or cassette) or
   * loaded from disk (stored): nothing was spent on it in this eval run.
   */
  recorded_cost_usd: z.number().nonnegative().optional(),
  /** The TEST_RUN_ID of the agent run, and where its captured files live. */
  run_id: z.string().optional(),
  output_dir: z.string().optional(),
  /**
   * Where the run came from: live (the model was called and paid for), replay (the real CLI against
   * a wire recording), cassette (a recorded run, the agent never started) or stored (a run read from
   * disk). Reports label the last three "replayed" or "stored" and show no cost for them.
   */
  origin: AgentRunResultSchema.shape.origin.optional(),
  /** The recording the trial's run replayed (origin replay): its file, relative to where the run started. */
  recording: AgentRunResultSchema.shape.recording,
  /** Why the trial errored or failed, in one readable message. */
  error: z.string().optional(),
  /** The agent's run: the HTML report draws its timeline from it. */
  run: RunSchema.optional(),
});
export type TrialResult = z.infer<typeof TrialResultSchema>;

/** Statistics over a case's trials (k = the number of trials). */
export const TrialStatsSchema = z.object({
  trials: z.number().int().nonnegative(),
  passed: z.number().int().nonnegative(),
  /** passed / trials. */
  pass_rate: z.number().min(0).max(1),
  mean_score: z.number().min(0).max(1),
  /** Sample standard deviation of the per-trial mean scores (0 with one trial). */
  score_stddev: z.number().nonnegative(),
  k: z.number().int().nonnegative(),
  /** Chance that at least one of k trials passes (unbiased estimator over the n trials run). */
  pass_at_k: z.number().min(0).max(1),
  /** Chance that all k trials pass. */
  pass_hat_k: z.number().min(0).max(1),
  /** 95% Wilson score interval of the pass rate. */
  ci_low: z.number().min(0).max(1),
  ci_high: z.number().min(0).max(1),
  /** Share of consecutive trials whose verdicts differ (0 = stable). */
  flip_rate: z.number().min(0).max(1),
});
export type TrialStats = z.infer<typeof TrialStatsSchema>;

export const CaseResultSchema = z.object({
  /** The case id (stable across runs). */
  id: z.string(),
  name: z.string(),
  /** The describeEval suite it belongs to. */
  suite: z.string().optional(),
  /** The eval file, relative to the project root. */
  file: z.string().optional(),
  description: z.string().optional(),
  tags: z.array(z.string()),
  status: CaseStatusSchema,
  /** Per scorer, over all trials. */
  scores: z.array(ScoreSchema),
  trials: z.array(TrialResultSchema),
  stats: TrialStatsSchema.optional(),
  /** Every violation of every trial, each with its `trial`. */
  violations: z.array(CaseViolationSchema),
  duration_ms: z.number().nonnegative(),
  /** Total over the trials whose runs were paid for in this eval run (live), when known. */
  cost_usd: z.number().nonnegative().optional(),
  /** Why the case failed or errored, in one readable message. */
  error: z.string().optional(),
});
export type CaseResult = z.infer<typeof CaseResultSchema>;

/**
 * What describeEval attaches to each vitest test it creates, for reporters to read:
 * `task.meta.evalCase = caseResult` (inside the test, before it ends, also when it fails).
 */
export const EvalTestMetaSchema = z.object({
  evalCase: CaseResultSchema.extend({ meta_version: z.literal(EVAL_TEST_META_VERSION).optional() }),
});
export type EvalTestMeta = z.infer<typeof EvalTestMetaSchema>;
