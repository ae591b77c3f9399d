import type { CaseResult, CaseViolation, Score } from "./case-result.js";

/** Why a case did not pass, in one line: the first rules that failed with their messages, the scorers below threshold, then its error (first for a case that errored). */
export function failureSummary(c: Pick<CaseResult, "status" | "error" | "scores" | "violations">): string {
  if (c.status === "passed" || c.status === "skipped") return "";
  const errors = c.violations.filter((v) => v.severity === "error" && !v.expected);
  // The same violation in several trials counts once.
  const described = unique(errors.map(describeViolation));
  const ruleParts = described.slice(0, 2);
  if (described.length > 2) ruleParts.push(`+${described.length - 2} more violations`);
  // A failed scorer whose violation is shown already says nothing more.
  const shownViolations = errors.filter((v) => ruleParts.includes(describeViolation(v)));
  const shown = new Set(shownViolations.map((v) => v.scorer ?? v.rule));
  const scoreParts = c.scores.filter((s) => !s.passed && !shown.has(s.scorer)).map(describeScore);
  const errorParts = c.error ? [firstLine(c.error)] : [];
  // What failed leads (the rule and its message); the verdict ("0 of 3 trials passed") follows. A case
  // that errored leads with its error: that is what went wrong.
  const parts =
    c.status === "error"
      ? [...errorParts, ...ruleParts, ...scoreParts]
      : [...ruleParts, ...scoreParts, ...errorParts];
  return parts.length > 0 ? unique(parts).join("; ") : c.status === "error" ? "errored" : "failed";
}

/** "trajectory 0.40 < 0.80" or "approval-gate failed (0.00)". */
export function describeScore(score: Score): string {
  const value = score.score.toFixed(2);
  if (score.threshold !== undefined) {
    return `${score.scorer} ${value} ${score.passed ? ">=" : "<"} ${score.threshold.toFixed(2)}`;
  }
  return `${score.scorer} ${score.passed ? "passed" : "failed"} (${value})`;
}

/** "approval-gate/missing-approval: Bash ran without approval". */
export function describeViolation(violation: CaseViolation): string {
  return `${violation.rule}/${violation.type}: ${firstLine(violation.message)}`;
}

/** "error", or "error (expected)" for a violation the case asked for. */
export function violationLabel(violation: Pick<CaseViolation, "severity" | "expected">): string {
  return violation.expected ? `${violation.severity} (expected)` : violation.severity;
}

/** Violation counts by severity, the expected ones (the case asked for them) counted apart. */
export interface ViolationCounts {
  error: number;
  warning: number;
  info: number;
  /** Violations the case expected, whatever their severity: they do not count against it. */
  expected: number;
}

export function countViolations(violations: Pick<CaseViolation, "severity" | "expected">[]): ViolationCounts {
  const counts: ViolationCounts = { error: 0, warning: 0, info: 0, expected: 0 };
  for (const violation of violations) {
    if (violation.expected) counts.expected++;
    else counts[violation.severity]++;
  }
  return counts;
}

export function firstLine(text: string): string {
  const line = text.trim().split("\n", 1)[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
