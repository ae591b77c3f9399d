/**
 * Why a judge gave no verdict. Every kind makes the scorer fail with the reason: a judge that did
 * not judge never passes a case.
 */
export const JUDGE_FAILURE_KINDS = [
  /** The model did not answer within `timeoutMs`. */
  "timeout",
  /** The API (or the model server) answered with an error, or could not be reached. */
  "api-error",
  /** The model declined to grade (`stop_reason: "refusal"`, or a refusal instead of a verdict). */
  "refused",
  /** The reply is not a verdict: no verdict tool call, a cut-off reply, or fields missing or wrong. */
  "malformed",
  /** No recorded verdict for this judge prompt, and none may be recorded now (strict, or no key). */
  "no-recording",
  /** A replayed request left its recording. */
  "diverged",
  /** There is nothing to judge: the run has no final answer, or the rubric is empty. */
  "no-input",
] as const;
export type JudgeFailureKind = (typeof JUDGE_FAILURE_KINDS)[number];

/** A judge call that gave no verdict, with the kind of failure and a message that says why. */
export class JudgeError extends Error {
  override readonly name = "JudgeError";
  constructor(
    readonly kind: JudgeFailureKind,
    message: string,
  ) {
    super(message);
  }
}
