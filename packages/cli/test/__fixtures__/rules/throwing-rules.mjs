// Rules of a user's own with a bug: they throw while a run is graded (cli.test.ts). That is the
// rule's bug, not one in evals: `evals grade` names the module, the rule and where it threw.
import { defineRule, RuleOptionsBaseSchema } from "@evals/evaluators";

export const throwsEvaluating = defineRule({
  id: "throws-evaluating",
  summary: "Throws on every run it evaluates.",
  options: RuleOptionsBaseSchema.strict(),
  optIn: true,
  evaluate(run) {
    return { score: run.events.at(-1).no.such.field };
  },
});

export const throwsVisiting = defineRule({
  id: "throws-visiting",
  summary: "Throws on the first tool call it visits.",
  options: RuleOptionsBaseSchema.strict(),
  optIn: true,
  visit() {
    return {
      call() {
        throw new Error("not ready for this call");
      },
      end: () => ({ score: 1 }),
    };
  },
});
