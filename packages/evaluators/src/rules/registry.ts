import type { AnyRule } from "../define-rule.js";
import { approvalGateRule } from "./approval-gate.js";
import { cleanupConfirmationRule } from "./cleanup-confirmation.js";
import { contextLoadingRule } from "./context-loading.js";
import { delegationRule } from "./delegation.js";
import { errorHandlingRule } from "./error-handling.js";
import { executionBalanceRule } from "./execution-balance.js";
import { forbiddenCommandsRule } from "./forbidden-commands.js";
import { performanceMetricsRule } from "./performance-metrics.js";
import { readBeforeWriteRule } from "./read-before-write.js";
import { reportFirstRule } from "./report-first.js";
import { skillUsageRule } from "./skill-usage.js";
import { stopOnFailureRule } from "./stop-on-failure.js";
import { toolUsageRule } from "./tool-usage.js";

/** The built-in rules, in report order. The case schema, its JSON Schema, `evals rules` and the docs come from here. */
export const BUILTIN_RULES = [
  approvalGateRule,
  contextLoadingRule,
  executionBalanceRule,
  toolUsageRule,
  skillUsageRule,
  delegationRule,
  stopOnFailureRule,
  cleanupConfirmationRule,
  readBeforeWriteRule,
  forbiddenCommandsRule,
  performanceMetricsRule,
  reportFirstRule,
  errorHandlingRule,
] as const;

/** The id of a built-in rule. */
export type RuleId = (typeof BUILTIN_RULES)[number]["id"];

/** The built-in rules' ids. */
export const RULE_IDS = BUILTIN_RULES.map((rule) => rule.id) as readonly RuleId[] as readonly [
  RuleId,
  ...RuleId[],
];

/** Built-in rules a case runs only when it asks for them (report-first, error-handling). */
export const OPT_IN_RULE_IDS = BUILTIN_RULES.filter((rule) => rule.optIn).map(
  (rule) => rule.id,
) as readonly RuleId[];

/** The evaluators that are not rules: how the run ended, the case's behavior, trajectory matching. */
export const CORE_EVALUATOR_IDS = ["outcome", "behavior", "trajectory"] as const;

/** Every built-in evaluator: outcome, behavior, trajectory and the rules. */
export const EVALUATOR_IDS = [...CORE_EVALUATOR_IDS, ...RULE_IDS] as const;
/** A built-in evaluator's id, or a registered rule's. */
export type EvaluatorId = (typeof EVALUATOR_IDS)[number] | (string & {});

const registered = new Map<string, AnyRule>(BUILTIN_RULES.map((rule) => [rule.id, rule]));
let generation = 0;

/**
 * Adds a rule made with `defineRule`, so that case files can name it (`rules:`, `expectedViolations`)
 * and every case runs it (unless it is `optIn` or the case turns it off). Registering the same rule
 * again does nothing; another rule with a taken id is an error.
 */
export function registerRule(rule: AnyRule): void {
  const existing = registered.get(rule.id);
  if (existing === rule) return;
  if (existing || (CORE_EVALUATOR_IDS as readonly string[]).includes(rule.id))
    throw new Error(`a rule with the id "${rule.id}" is already registered`);
  if (!/^[a-z][a-z0-9-]*$/.test(rule.id))
    throw new Error(`rule id "${rule.id}": use lowercase letters, digits and dashes`);
  registered.set(rule.id, rule);
  generation++;
}

/** Removes a rule added with registerRule (built-in rules stay). */
export function unregisterRule(id: string): void {
  if ((RULE_IDS as readonly string[]).includes(id)) throw new Error(`"${id}" is a built-in rule`);
  if (registered.delete(id)) generation++;
}

/** Every rule, built-in then registered, in report order. */
export function allRules(): AnyRule[] {
  return [...registered.values()];
}

/** The rule with this id, if there is one. */
export function ruleById(id: string): AnyRule | undefined {
  return registered.get(id);
}

/** Changes every time the set of rules does (caches built from it compare this). */
export function rulesGeneration(): number {
  return generation;
}

/** Whether a rule runs only when a case asks for it. */
export function isOptInRule(id: string): boolean {
  return registered.get(id)?.optIn === true;
}

/** Every evaluator id a case may name: the built-in ones and the registered rules. */
export function evaluatorIds(): string[] {
  return [...CORE_EVALUATOR_IDS, ...registered.keys()];
}
