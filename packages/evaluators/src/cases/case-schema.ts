import { jsonSchemaOf } from "@evals/core";
import { getOrCreate } from "../collections.js";
import { BUILTIN_RULES, defaultRuleRegistry, type RuleRegistry } from "../rules/registry.js";
import { type CaseSchema, caseSchemaOf } from "./schema.js";

/** The case schema with the built-in rules (typed: each rule's entry of `rules` has its own options). */
export const EvalCaseSchema = caseSchemaOf(BUILTIN_RULES);

// A registry never changes, so its schema is built once.
const schemas = new WeakMap<RuleRegistry, CaseSchema>([[defaultRuleRegistry, EvalCaseSchema]]);
const jsonSchemas = new WeakMap<RuleRegistry, Record<string, unknown>>();

/**
 * The case schema of a registry: `rules` and `expectedViolations` may name its rules and no other.
 * What `parseCase` and `loadCases` validate with (default: the built-in rules).
 */
export function caseSchemaFor(registry: RuleRegistry = defaultRuleRegistry): CaseSchema {
  return getOrCreate(schemas, registry, () => caseSchemaOf(registry.rules));
}

/** The JSON Schema (draft 2020-12) of a case file naming the rules of `registry`, from its zod schema. */
export function caseJsonSchema(registry: RuleRegistry = defaultRuleRegistry): Record<string, unknown> {
  return getOrCreate(jsonSchemas, registry, () =>
    jsonSchemaOf(caseSchemaFor(registry), { id: "urn:evals:evaluators:case", title: "Eval case" }),
  );
}
