// A rule whose verdict depends on its environment, as a rule on time or on the machine does: it
// fails a run while the environment variable it names is set (insights.claude.test.ts makes a
// replayed case flaky with it: the same case file and recording, verdicts that differ run to run).
import { defineRule, RuleOptionsBaseSchema } from "@evals/evaluators";
import { z } from "zod";

export const envVerdict = defineRule({
  id: "env-verdict",
  summary: "Fails while the environment variable it names is set.",
  options: RuleOptionsBaseSchema.extend({ variable: z.string() }).strict(),
  optIn: true,
  evaluate(_run, options, { violate }) {
    if (!process.env[options.variable]) return { score: 1 };
    violate("environment-set", "error", `${options.variable} is set`);
    return { score: 0 };
  },
});
