import type { RunFolderCase } from "@evals/core";
import { type CaseEvaluation, type EvaluatorVerdict, meanScore } from "../cases/evaluate.js";
import { OUTCOME_EVALUATOR } from "../outcome.js";
import { defaultRuleRegistry, type RuleRegistry } from "../rules/registry.js";

type Grading = NonNullable<RunFolderCase["grading"]>;

/**
 * A case's evaluation judged with the thresholds the harness used for it (describeEval's
 * `threshold` and each scorer's own, as stored in the run folder), so that re-grading a harness run
 * gives the harness's verdict: a scorer with a threshold passes when its score reaches it, one
 * without passes when the evaluator passed; `{ overall }` also needs the mean of the scores. Only
 * the scorers the harness ran count (when they are all evaluators: a suite may run a few of a case's),
 * and the score is the mean of theirs, the trial's score in the harness's results. `rules`: the
 * registry the case was evaluated with (its evaluator ids tell evaluators from other scorers).
 */
export function judgeAsHarness(
  evaluation: CaseEvaluation,
  grading: Grading,
  rules: RuleRegistry = defaultRuleRegistry,
): CaseEvaluation {
  const stored = new Map(grading.scorers.map((scorer) => [scorer.name, scorer]));
  const ran = scorersTheHarnessRan(grading);
  // Scorers that are all evaluators: only theirs count, as only they did for the harness. Others
  // (caseScorer's "case:<id>", a suite's own) cannot be matched to verdicts: every verdict counts.
  const known = rules.evaluatorIds();
  const judged = ran.every((name) => known.includes(name))
    ? evaluation.verdicts.filter((verdict) => ran.includes(verdict.evaluator))
    : evaluation.verdicts;
  const verdicts = judged.map((verdict): EvaluatorVerdict => {
    const scorer = stored.get(verdict.evaluator);
    if (!scorer) return verdict;
    const { threshold: _caseThreshold, ...rest } = verdict;
    const ok = scorer.threshold !== undefined ? verdict.score >= scorer.threshold : verdict.passed;
    const reasons =
      ok || verdict.reasons.length > 0
        ? verdict.reasons
        : [`score ${verdict.score.toFixed(2)} is below the threshold ${scorer.threshold}`];
    return {
      ...rest,
      ...(scorer.threshold !== undefined ? { threshold: scorer.threshold } : {}),
      ok,
      reasons,
    };
  });
  const reasons = verdicts.flatMap((verdict) =>
    verdict.ok ? [] : verdict.reasons.map((reason) => `${verdict.evaluator}: ${reason}`),
  );
  const overall =
    grading.threshold && typeof grading.threshold === "object"
      ? (grading.threshold as { overall?: unknown }).overall
      : undefined;
  const score = meanScore(verdicts);
  if (typeof overall === "number" && verdicts.length > 0 && score < overall) {
    reasons.push(`overall: the mean score ${score.toFixed(2)} is below ${overall}`);
  }
  return {
    ...evaluation,
    verdicts,
    results: verdicts.map((verdict) => verdict.result),
    expectedViolations: verdicts.flatMap((verdict) => verdict.expectedViolations),
    score,
    passed: reasons.length === 0,
    reasons,
  };
}

/**
 * The names of the scorers that judged the trial: those of its stored verdict (with the outcome
 * scorer the harness adds), else, for a trial that errored before it was scored, the suite's
 * scorers and the outcome scorer unless any outcome was accepted.
 */
function scorersTheHarnessRan(grading: Grading): string[] {
  if (grading.verdict.scores.length > 0) return grading.verdict.scores.map((score) => score.scorer);
  const names = grading.scorers.map((scorer) => scorer.name);
  return grading.outcome === "any" || names.includes(OUTCOME_EVALUATOR)
    ? names
    : [OUTCOME_EVALUATOR, ...names];
}

/**
 * A trial the harness marked error (a replay that diverged from its recording, a run that timed
 * out, a task that threw) did not pass, whatever its run scores now: the evaluation fails with the
 * harness's error as the reason.
 */
export function failOnHarnessError(evaluation: CaseEvaluation, verdict: Grading["verdict"]): CaseEvaluation {
  if (verdict.status !== "error") return evaluation;
  const reason = `harness: the harness marked this trial error: ${verdict.error ?? "(no reason stored)"}`;
  return { ...evaluation, passed: false, reasons: [...evaluation.reasons, reason] };
}
