import { z } from "zod";
import type { EvaluatorResult } from "./evaluator-result.js";
import { type Run, RunSchema } from "./run.js";

/**
 * What one run of an agent produced, whoever produced it: `runAgent` (the live CLI), a replayed
 * cassette, or a stored run being re-graded. Cassettes store it; describeEval scores it.
 */
export const AgentRunResultSchema = z.object({
  /** The TEST_RUN_ID of the run. */
  run_id: z.string(),
  /** Where the run's captured files live (test-output/<run_id>), when it has any. */
  output_dir: z.string().optional(),
  run: RunSchema,
  exit_code: z.number().int().nullable(),
  timed_out: z.boolean(),
  duration_ms: z.number().nonnegative(),
  /** The CLI's stderr (trimmed), for diagnosing a failed run. */
  stderr: z.string().optional(),
  /** Where the result came from. */
  origin: z.enum(["live", "replay", "cassette", "stored"]),
  /** The recording a replayed run was answered from: its file, relative to the folder the run started in. */
  recording: z.string().optional(),
});
export type AgentRunResult = z.infer<typeof AgentRunResultSchema>;

/** What a scorer is given: the agent's run, and the case it ran when there is one. */
export interface ScorerInput<Case = unknown> {
  run: Run;
  result?: AgentRunResult;
  case?: Case;
  /**
   * How the run was expected to end (the case's `outcome`, else the suite's): an @evals/evaluators
   * ExpectedOutcome. Scorers that judge the outcome use it when their case does not say.
   */
  expectedOutcome?: string | string[];
}

/**
 * A scorer turns a run into an evaluator result. Evaluators provide them; describeEval runs them.
 * `threshold` (0..1) is the score a case needs; without one, the result's `passed` decides.
 */
export interface Scorer<Case = unknown> {
  name: string;
  threshold?: number;
  score(input: ScorerInput<Case>): EvaluatorResult | Promise<EvaluatorResult>;
}
