import type { CaseResult, CaseViolation, Score } from "./case-result.js";

/** Why a case did not pass, in one line: its error, the scorers below threshold, the first violations. */
export function failureSummary(c: Pick<CaseResult, "status" | "error" | "scores" | "violations">): string {
  if (c.status === "passed" || c.status === "skipped") return "";
  const parts: string[] = [];
  if (c.error) parts.push(firstLine(c.error));
  for (const score of c.scores.filter((s) => !s.passed)) parts.push(describeScore(score));
  const errors = c.violations.filter((v) => v.severity === "error" && !v.expected);
  for (const violation of errors.slice(0, 2)) parts.push(describeViolation(violation));
  if (errors.length > 2) parts.push(`+${errors.length - 2} more violations`);
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
