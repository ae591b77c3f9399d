import { CORE_EVALUATOR_IDS } from "../cases/schema.js";
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

/** The built-in rules, in report order: the rules of `defaultRuleRegistry`. */
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
/** The built-in rule with this id (its options typed). */
export type BuiltinRule<Id extends RuleId = RuleId> = Extract<(typeof BUILTIN_RULES)[number], { id: Id }>;

/** The built-in rules' ids. */
export const RULE_IDS = BUILTIN_RULES.map((rule) => rule.id) as readonly RuleId[] as readonly [
  RuleId,
  ...RuleId[],
];

/** Built-in rules a case runs only when it asks for them (report-first, error-handling). */
export const OPT_IN_RULE_IDS = BUILTIN_RULES.filter((rule) => rule.optIn).map(
  (rule) => rule.id,
) as readonly RuleId[];

/** Every built-in evaluator: outcome, behavior, trajectory and the rules. */
export const EVALUATOR_IDS = [...CORE_EVALUATOR_IDS, ...RULE_IDS] as const;
/** A built-in evaluator's id, or a user rule's. */
export type EvaluatorId = (typeof EVALUATOR_IDS)[number] | (string & {});

/**
 * A set of rules, in report order: the rules case files may name (`rules:`, `expectedViolations`)
 * and that every case runs (unless one is `optIn` or the case turns it off). A registry never
 * changes: `with` gives a new one, so a rule added for one suite or command is seen nowhere else.
 * The case schema of a registry is `caseSchemaFor(registry)`.
 */
export class RuleRegistry {
  readonly #byId: ReadonlyMap<string, AnyRule>;

  /** A registry of these rules (ids unique, lowercase letters, digits and dashes). */
  constructor(rules: readonly AnyRule[] = []) {
    const byId = new Map<string, AnyRule>();
    for (const rule of rules) {
      const existing = byId.get(rule.id);
      if (existing === rule) continue;
      if (existing || (CORE_EVALUATOR_IDS as readonly string[]).includes(rule.id))
        throw new Error(`a rule with the id "${rule.id}" is already registered`);
      if (!/^[a-z][a-z0-9-]*$/.test(rule.id))
        throw new Error(`rule id "${rule.id}": use lowercase letters, digits and dashes`);
      byId.set(rule.id, rule);
    }
    this.#byId = byId;
  }

  /**
   * A new registry with this one's rules and these (made with `defineRule`) after them. The same
   * rule again is kept once; another rule with a taken id is an error.
   */
  with(...rules: AnyRule[]): RuleRegistry {
    return new RuleRegistry([...this.rules, ...rules]);
  }

  /** Every rule, in report order. */
  get rules(): readonly AnyRule[] {
    return [...this.#byId.values()];
  }

  /** The rule with this id, if there is one. */
  get(id: string): AnyRule | undefined {
    return this.#byId.get(id);
  }

  /** Whether a rule runs only when a case asks for it. */
  isOptIn(id: string): boolean {
    return this.#byId.get(id)?.optIn === true;
  }

  /** Every evaluator id a case may name: outcome, behavior, trajectory and the rules. */
  evaluatorIds(): string[] {
    return [...CORE_EVALUATOR_IDS, ...this.#byId.keys()];
  }
}

/** The built-in rules: what cases, `evals` and the scorers use unless given another registry. */
export const defaultRuleRegistry = new RuleRegistry(BUILTIN_RULES);
