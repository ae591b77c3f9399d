import type { RunFolderCase } from "@evals/core";
import type { CaseEvaluation, EvaluatorVerdict } from "../cases/evaluate.js";

type Grading = NonNullable<RunFolderCase["grading"]>;

/**
 * A case's evaluation judged with the thresholds the harness used for it (describeEval's
 * `threshold` and each scorer's own, as stored in the run folder), so that re-grading a harness run
 * gives the harness's verdict: a scorer with a threshold passes when its score reaches it, one
 * without passes when the evaluator passed; `{ overall }` also needs the mean of the scores.
 */
export function judgeAsHarness(evaluation: CaseEvaluation, grading: Grading): CaseEvaluation {
  const stored = new Map(grading.scorers.map((scorer) => [scorer.name, scorer]));
  const verdicts = evaluation.verdicts.map((verdict): EvaluatorVerdict => {
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
  if (typeof overall === "number" && verdicts.length > 0) {
    const mean = verdicts.reduce((sum, verdict) => sum + verdict.score, 0) / verdicts.length;
    if (mean < overall) reasons.push(`overall: the mean score ${mean.toFixed(2)} is below ${overall}`);
  }
  return { ...evaluation, verdicts, passed: reasons.length === 0, reasons };
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
