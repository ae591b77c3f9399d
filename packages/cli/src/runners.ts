// Everything the `evals` commands know about the agents they run or grade, in one place: when the
// engine takes a RunnerRegistry, this module builds it from the runner packages and answers from it.
import type { EvalCase, LoadStoredRunOptions } from "@evals/evaluators";
import { ClaudeNotFoundError, findClaude } from "@evals/harness";
import { UsageError } from "./errors.js";

/** The agents whose stored output `evals grade --agent` reads. */
export const GRADE_AGENTS = ["claude-code", "opencode"] as const;
export type GradeAgent = NonNullable<LoadStoredRunOptions["agent"]>;

/** `evals grade --agent <name>`, checked: a UsageError naming the agents it knows. */
export function gradeAgent(name: string | undefined): GradeAgent | undefined {
  if (name === undefined) return undefined;
  if (!(GRADE_AGENTS as readonly string[]).includes(name))
    throw new UsageError(`--agent must be ${GRADE_AGENTS.join(" or ")}, not ${JSON.stringify(name)}`);
  return name as GradeAgent;
}

/** Why the cases cannot run here: the CLI of an agent they name is missing (claude today). */
export function agentSetupProblem(cases: EvalCase[]): string | undefined {
  if (!cases.some((evalCase) => (evalCase.agent.cli ?? "claude-code") === "claude-code")) return undefined;
  try {
    findClaude();
    return undefined;
  } catch (error) {
    if (error instanceof ClaudeNotFoundError) return error.message;
    throw error;
  }
}
