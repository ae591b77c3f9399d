import { type CaseIssue, casePrompts, type EvalCase, type LoadedCase } from "@evals/evaluators";

/**
 * The most trials one case may run (its `trials`, or `evals run --trials`): every trial is a real
 * run of the CLI, so more is a typo, and a number as big as 10⁹ only fills memory before anything runs.
 */
export const MAX_TRIALS = 1000;

/**
 * What keeps a case the schema accepts from running with `evals run`: no prompt, more trials than
 * MAX_TRIALS (the fixture is checked by caseFixtureProblems, through the case loader). `evals
 * validate` reports the same problems, so what it passes `evals run` does not reject as bad input.
 */
export function runnableCaseProblems(evalCase: EvalCase): CaseIssue[] {
  const file = (evalCase as Partial<LoadedCase>).file ?? "<case>";
  const id = JSON.stringify(evalCase.id);
  const problems: CaseIssue[] = [];
  if (casePrompts(evalCase).length === 0) {
    problems.push({
      file,
      field: "prompt",
      message: `case ${id} has no prompt: give it \`prompt\` (or \`prompts\`)`,
    });
  }
  if (evalCase.trials > MAX_TRIALS) {
    problems.push({
      file,
      field: "trials",
      message: `case ${id} asks for ${evalCase.trials} trials; at most ${MAX_TRIALS}`,
    });
  }
  return problems;
}
