/** The environment variable that turns the LLM judges on for every suite (`EVAL_LLM_JUDGE=1`). */
export const JUDGE_ENV = "EVAL_LLM_JUDGE";

/**
 * Whether the LLM judges run: `enabled` when given (a suite that always judges), else
 * `EVAL_LLM_JUDGE=1` in the environment.
 */
export function judgeEnabled(enabled?: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  return enabled ?? env[JUDGE_ENV] === "1";
}

/**
 * The judge scorers when judging is on, else none: `scorers: [trajectoryScorer(), ...whenJudging(() =>
 * rubricJudge())]`. The function is not called when judging is off, and the judges load the
 * Anthropic SDK only when they first score, so a suite without judging never loads it.
 */
export function whenJudging<S>(
  judges: () => S | S[],
  options: { enabled?: boolean; env?: NodeJS.ProcessEnv } = {},
): S[] {
  if (!judgeEnabled(options.enabled, options.env)) return [];
  const made = judges();
  return Array.isArray(made) ? made : [made];
}
