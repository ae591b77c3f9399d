import type { EventPointer, Severity, Violation } from "@evals/core";

/**
 * The parts as one flat string. A `${a}${b}` string is a tree of its parts, which writing it as JSON
 * later copies into a flat string and keeps beside the tree: a long run's text per violation made
 * flat at once holds less at the report's peak.
 */
export function flatJoin(...parts: string[]): string {
  return parts.join("");
}

/**
 * A violation as a rule reports it. An error's text is made once, flat, as the line a failed case
 * gives as its reason, "<rule>: <type>: <message>", and its message is a slice of that line (V8 keeps
 * a slice of a long string as a pointer into it): a long run's thousands of errors hold their text
 * once, not in the message and again in the reasons. The line is a private field: JSON, spreads and
 * Object.entries see the Violation's fields only.
 */
class ReportedViolation implements Violation {
  // Every field, in the order JSON writes them (undefined when absent: JSON leaves it out), so the
  // violations of a long run share one shape and hold their fields in the object itself.
  rule: string;
  type: string;
  severity: Severity;
  message: string;
  pointer: EventPointer | undefined;
  evidence: unknown;
  readonly #line: string | undefined;

  constructor(
    rule: string,
    type: string,
    severity: Severity,
    message: string,
    pointer: EventPointer | undefined,
    evidence: unknown,
  ) {
    const line = severity === "error" ? flatJoin(rule, ": ", type, ": ", message) : undefined;
    this.rule = rule;
    this.type = type;
    this.severity = severity;
    this.message = line === undefined ? message : line.slice(line.length - message.length);
    this.pointer = pointer;
    this.evidence = evidence;
    this.#line = line;
  }

  /** The reason line of `item`, when it was reported as an error and still says what the line says. */
  static lineOf(item: Violation): string | undefined {
    if (!(#line in item)) return undefined;
    const line = item.#line;
    const { rule, type, message } = item;
    const same =
      line !== undefined &&
      line.length === rule.length + type.length + message.length + 4 &&
      line.startsWith(rule) &&
      line.startsWith(type, rule.length + 2) &&
      line.endsWith(message);
    return same ? line : undefined;
  }
}

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
 * violation's message; undefined for any other violation.
 */
export function reasonLineOf(item: Violation): string | undefined {
  return ReportedViolation.lineOf(item);
}
