import type { AnyRule, RuleOutcome, RuleRegistry, RunVisitor } from "@evals/evaluators";
import { BadInputError } from "./errors.js";
import { errorLocation, importUserModule } from "./user-module.js";

/**
 * Takes every `--rules <module>` (or `--rules=<module>`) out of the command line and loads those
 * modules: the registry it returns holds the built-in rules and every rule the modules export (made
 * with defineRule, alone or in arrays), so that case files may name them. Returns the arguments left
 * and that registry (none without `--rules`: each command then uses the built-in rules), or why a
 * module could not be used. The rules package is imported only then: a command that names no rule
 * (`evals history`) starts without it.
 */
export async function loadRuleModules(
  argv: string[],
  cwd = process.cwd(),
): Promise<{ args: string[]; rules?: RuleRegistry } | { error: string }> {
  const args: string[] = [];
  const modules: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--rules") {
      const module = argv[++i];
      if (module === undefined || module.startsWith("-"))
        return { error: "--rules needs a module: --rules <file>" };
      modules.push(module);
    } else if (arg.startsWith("--rules=")) modules.push(arg.slice("--rules=".length));
    else args.push(arg);
  }
  if (modules.length === 0) return { args };
  let rules = (await import("@evals/evaluators")).defaultRuleRegistry;
  for (const module of modules) {
    const imported = await importUserModule(module, "--rules", cwd);
    if ("error" in imported) return imported;
    const exported = Object.values(imported.exports).flatMap((value) =>
      Array.isArray(value) ? value : [value],
    );
    try {
      rules = rules.with(...exported.filter(isRule).map((rule) => blamingModule(rule, module, cwd)));
    } catch (error) {
      return { error: `--rules ${module}: ${(error as Error).message}` };
    }
  }
  return { args, rules };
}

/** What defineRule makes: an id and a check. */
function isRule(value: unknown): value is AnyRule {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { id?: unknown }).id === "string" &&
    typeof (value as { check?: unknown }).check === "function"
  );
}

/**
 * `rule`, whose errors name the module and the rule: a rule of the user's own that throws while it
 * grades is a bug in that module (exit 2, like a module that cannot be imported), not in evals.
 */
function blamingModule(rule: AnyRule, module: string, cwd: string): AnyRule {
  // Each method is called on the object it came from, as the registry would call it.
  const blamed =
    <Args extends unknown[], Result>(run: (...args: Args) => Result, self: object = rule) =>
    (...args: Args): Result => {
      try {
        return run.apply(self, args);
      } catch (error) {
        if (error instanceof BadInputError) throw error;
        const where = errorLocation(error, module, cwd);
        const what =
          error instanceof Error ? `${error.name}: ${error.message.split("\n")[0]}` : String(error);
        throw new BadInputError(
          `--rules ${module}: rule "${rule.id}" threw: ${where ? `${where}: ` : ""}${what}`,
        );
      }
    };
  const visit = rule.visit;
  return {
    ...rule,
    evaluate: blamed(rule.evaluate),
    check: blamed(rule.check),
    ...(visit && {
      visit: blamed((options, context) => {
        const visitor: RunVisitor<RuleOutcome> = visit.call(rule, options, context);
        // Only the methods it has: a visitor without `event` is not handed every event.
        return {
          ...(visitor.event && { event: blamed(visitor.event, visitor) }),
          ...(visitor.call && { call: blamed(visitor.call, visitor) }),
          end: blamed(visitor.end, visitor),
        };
      }),
    }),
  };
}
