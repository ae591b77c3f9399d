// Everything the `evals` commands know about the agents they run or grade, in one place: the runner
// registry they hand the engine, composed from the runner packages this CLI depends on.
import { claudeCodeRunner } from "@evals/claude-code";
import { codexRunner } from "@evals/codex";
import type { EvalCase, LoadStoredRunOptions } from "@evals/evaluators";
import { geminiRunner } from "@evals/gemini-cli";
import { RunnerRegistry } from "@evals/harness";
import { openCodeRunner } from "@evals/opencode";
import { UsageError } from "./errors.js";

let registry: RunnerRegistry | undefined;

/** The agent runners of the `evals` command: Claude Code's (the default), OpenCode's, Codex's and Gemini CLI's. */
export function cliRunners(): RunnerRegistry {
  registry ??= new RunnerRegistry([claudeCodeRunner, openCodeRunner, codexRunner, geminiRunner]);
  return registry;
}

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

/** Why the cases cannot run here: the first agent CLI they use that its runner says is unavailable. */
export function unavailableAgentProblem(cases: EvalCase[], runners: RunnerRegistry): string | undefined {
  const clis = new Set(cases.map((evalCase) => evalCase.agent.cli ?? runners.names()[0]!));
  for (const cli of clis) {
    if (!runners.has(cli)) continue;
    const reason = runners.get(cli).unavailable?.();
    if (reason !== undefined) return reason;
  }
  return undefined;
}
