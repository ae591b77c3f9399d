import { gradeCommand } from "@evals/evaluators";
import type { Command } from "./command.js";

/** `evals grade`: @evals/evaluators' re-grading of a stored run (its help is GRADE_USAGE). */
export const grade: Command = {
  name: "grade",
  summary: "grade a stored run (a run folder under test-output/) against its case, without running the agent",
  run: (args, io) => gradeCommand(args, io),
};
