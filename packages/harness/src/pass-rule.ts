/**
 * When a case with several trials passes:
 * - "all": every trial passed (what pass^k measures; the default);
 * - "any": at least one trial passed (what pass@k measures);
 * - `{ atLeast: rate }`: the share of trials that passed reaches `rate` (0..1).
 */
export type PassRule = "all" | "any" | { atLeast: number };

/** Whether `passed` of `trials` trials satisfies the rule. */
export function satisfiesPassRule(rule: PassRule, passed: number, trials: number): boolean {
  if (trials === 0) return false;
  if (rule === "all") return passed === trials;
  if (rule === "any") return passed > 0;
  return passed / trials >= rule.atLeast;
}

/** The rule in words, for failure messages: "every trial to pass". */
export function describePassRule(rule: PassRule): string {
  if (rule === "all") return "every trial to pass";
  if (rule === "any") return "at least one trial to pass";
  return `at least ${formatPercent(rule.atLeast)} of the trials to pass`;
}

/** Throws on a rule that makes no sense. */
export function checkPassRule(rule: PassRule): void {
  if (rule === "all" || rule === "any") return;
  if (
    !rule ||
    typeof rule !== "object" ||
    typeof rule.atLeast !== "number" ||
    !(rule.atLeast >= 0 && rule.atLeast <= 1)
  ) {
    throw new Error(
      `describeEval: passRule must be "all", "any" or { atLeast: a rate between 0 and 1 }, got ${JSON.stringify(rule)}`,
    );
  }
}

export function formatPercent(rate: number): string {
  return `${Math.round(rate * 1000) / 10}%`;
}
