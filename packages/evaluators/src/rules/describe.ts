import type { z } from "zod";
import { defaultRuleRegistry, type RuleRegistry } from "./registry.js";

/** A rule as `evals rules` and the docs show it. */
export interface RuleDescription {
  id: string;
  summary: string;
  /** Runs only when a case names it. */
  optIn: boolean;
  /** Its option names (every rule also takes `severity`). */
  options: string[];
}

/** The rules of a registry (default: the built-in ones), described from their own declarations. */
export function describeRules(registry: RuleRegistry = defaultRuleRegistry): RuleDescription[] {
  return registry.rules.map((rule) => ({
    id: rule.id,
    summary: rule.summary,
    optIn: rule.optIn === true,
    options: optionNames(rule.options),
  }));
}

function optionNames(schema: z.ZodType): string[] {
  const shape = (schema as { shape?: Record<string, unknown> }).shape;
  return shape ? Object.keys(shape).filter((name) => name !== "severity") : [];
}

/** The rules as a Markdown table (the README's rule list is this table: a test keeps it current). */
export function rulesMarkdown(registry: RuleRegistry = defaultRuleRegistry): string {
  const rows = describeRules(registry).map(
    (rule) =>
      `| \`${rule.id}\` | ${rule.optIn ? "opt-in" : "on"} | ${rule.summary.replaceAll("|", "\\|")} | ${rule.options.map((name) => `\`${name}\``).join(", ") || "—"} |`,
  );
  return ["| rule | runs | checks | options (and `severity`) |", "| --- | --- | --- | --- |", ...rows].join(
    "\n",
  );
}

/** The rules as plain text: one line each, then its options (`evals rules`). */
export function rulesText(registry: RuleRegistry = defaultRuleRegistry): string {
  const described = describeRules(registry);
  const width = Math.max(...described.map((rule) => rule.id.length));
  return described
    .map((rule) => {
      const head = `${rule.id.padEnd(width)}  ${rule.optIn ? "(opt-in) " : ""}${rule.summary}`;
      const options = `${" ".repeat(width + 2)}options: ${[...rule.options, "severity"].join(", ")}`;
      return `${head}\n${options}`;
    })
    .join("\n");
}
