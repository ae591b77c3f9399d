import { rulesMarkdown, rulesText } from "@evals/evaluators";
import { noMoreArguments, parseCommandArgs } from "./args.js";
import type { Command } from "./command.js";
import { EXIT, EXIT_CODES_HELP } from "./exit-codes.js";

export const RULES_USAGE = `Usage: evals rules [--markdown]

Lists the rule evaluators a case can name under \`rules:\` and in \`expectedViolations\`: each one's id,
what it checks, whether it is opt-in (runs only when a case names it) and its options. The list comes
from the rules' own declarations (defineRule).

Options:
  --markdown  a Markdown table (as in the @evals/evaluators README)
  -h, --help  this help

${EXIT_CODES_HELP}
Here: 0 listed, 2 bad usage.`;

/** `evals rules`: the rules (built-in, and those of `--rules` modules), from their descriptors. */
export const rules: Command = {
  name: "rules",
  summary: "list the rule evaluators, what each checks and its options",
  usage: RULES_USAGE,
  run: async (args, io) => {
    const parsed = parseCommandArgs("rules", args, { markdown: { type: "boolean" } });
    noMoreArguments("rules", parsed.positionals, 0);
    io.stdout.write(`${parsed.values.markdown ? rulesMarkdown(io.rules) : rulesText(io.rules)}\n`);
    return EXIT.passed;
  },
};
