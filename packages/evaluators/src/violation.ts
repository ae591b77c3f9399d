import type { EventPointer, Severity, Violation } from "@evals/core";

/**
 * The parts as one flat string. A `${a}${b}` string is a tree of its parts, which writing it as JSON
 * later copies into a flat string and keeps beside the tree: a long run's text per violation made
 * flat at once holds less at the report's peak.
 */
export function flatJoin(...parts: string[]): string {
  return parts.join("");
}

/** Where a reported error keeps its reason line: a non-enumerable key, seen by no copy or comparison. */
const REASON_LINE = Symbol("evals.reasonLine");

type ReportedViolation = Violation & { readonly [REASON_LINE]?: string };

/**
 * Makes a violation as a rule reports it. An error's text is made once, flat, as the line a failed
 * case gives as its reason, "<rule>: <type>: <message>", and its message is a slice of that line (V8
 * keeps a slice of a long string as a pointer into it): a long run's thousands of errors hold their
 * text once, not in the message and again in the reasons.
 *
 * A constructor, not a literal, so the line sits in the object itself (a seventh property added to a
 * six-property literal costs a separate backing store); its prototype is Object.prototype, so a
 * violation is a plain object to `toStrictEqual`, `assert.deepStrictEqual`, JSON and spreads, which
 * all skip a non-enumerable symbol key.
 */
const ReportedViolation = function (
  this: Record<string | symbol, unknown>,
  rule: string,
  type: string,
  severity: Severity,
  message: string,
  pointer: EventPointer | undefined,
  evidence: unknown,
) {
  const line = severity === "error" ? flatJoin(rule, ": ", type, ": ", message) : undefined;
  // Every field, in the order JSON writes them (undefined when absent: JSON leaves it out), so the
  // violations of a long run share one shape.
  this.rule = rule;
  this.type = type;
  this.severity = severity;
  this.message = line === undefined ? message : line.slice(line.length - message.length);
  this.pointer = pointer;
  this.evidence = evidence;
  Object.defineProperty(this, REASON_LINE, { value: line });
} as unknown as new (
  ...args: Parameters<typeof violation>
) => ReportedViolation;
ReportedViolation.prototype = Object.prototype;

export function violation(
  rule: string,
  type: string,
  severity: Severity,
  message: string,
  pointer?: EventPointer,
  evidence?: unknown,
): Violation {
  return new ReportedViolation(rule, type, severity, message, pointer, evidence);
}

/**
 * "<rule>: <type>: <message>" of an error `violation()` made, as one flat string whose slice is the
 * violation's message; undefined for any other violation, or one changed since it was made.
 */
export function reasonLineOf(item: Violation): string | undefined {
  const line = (item as ReportedViolation)[REASON_LINE];
  if (line === undefined) return undefined;
  const { rule, type, message } = item;
  const same =
    line.length === rule.length + type.length + message.length + 4 &&
    line.startsWith(rule) &&
    line.startsWith(type, rule.length + 2) &&
    line.endsWith(message);
  return same ? line : undefined;
}
