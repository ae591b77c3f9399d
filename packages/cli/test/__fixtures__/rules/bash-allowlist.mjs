// A rule of a user's own, loaded by `evals --rules bash-allowlist.mjs ...` (cli.test.ts).
import { bashCommand, defineRule, pointerTo, RuleOptionsBaseSchema } from "@evals/evaluators";
import { z } from "zod";

export const bashAllowlist = defineRule({
  id: "bash-allowlist",
  summary: "Every Bash command starts with an allowed program.",
  options: RuleOptionsBaseSchema.extend({ programs: z.array(z.string()).optional() }).strict(),
  optIn: true,
  evaluate(_run, options, { index, violate }) {
    const allowed = new Set(options.programs ?? ["ls"]);
    let ok = 0;
    let checked = 0;
    for (const call of index.calls) {
      const command = bashCommand(call);
      if (command === undefined) continue;
      checked++;
      const program = command.trim().split(/\s+/)[0] ?? "";
      if (allowed.has(program)) ok++;
      else violate("program-not-allowed", "error", `${program} is not allowed`, pointerTo(call));
    }
    return { score: checked === 0 ? 1 : ok / checked, metadata: { checked } };
  },
});
