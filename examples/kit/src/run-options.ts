import { casePrompts, type EvalCase } from "@evals/evaluators";
import type { RunAgentOptions } from "@evals/harness";
import type { CassetteIdentity } from "@evals/vcr";

/** The runAgent options a case asks for (its prompts and `agent` section), without a cwd. */
export function runOptionsOf(evalCase: EvalCase): RunAgentOptions {
  const prompts = casePrompts(evalCase);
  if (prompts.length === 0) throw new Error(`case ${evalCase.id} has no prompt`);
  const { agent } = evalCase;
  return {
    prompt: prompts.length === 1 ? prompts[0]! : prompts,
    ...shapingOptions(evalCase),
    ...(agent.env ? { env: agent.env } : {}),
    ...(evalCase.timeout !== undefined ? { timeoutMs: evalCase.timeout } : {}),
  };
}

/** The options that change what the agent does (and so key its recording). */
function shapingOptions(evalCase: EvalCase): Partial<RunAgentOptions> {
  const { agent } = evalCase;
  return {
    ...(agent.model ? { model: agent.model } : {}),
    ...(agent.maxTurns !== undefined ? { maxTurns: agent.maxTurns } : {}),
    ...(agent.allowedTools ? { allowedTools: agent.allowedTools } : {}),
    ...(agent.disallowedTools ? { disallowedTools: agent.disallowedTools } : {}),
    ...(agent.permissionMode ? { permissionMode: agent.permissionMode } : {}),
    ...(agent.appendSystemPrompt !== undefined ? { appendSystemPrompt: agent.appendSystemPrompt } : {}),
  };
}

/**
 * What names a case's recording: the suite, the case id, and a hash of its prompts and the options
 * that shape the run. Editing the prompt or those options makes the old recording stale (it no longer
 * applies and a new one is needed); the fixture's path and the environment do not count.
 */
export function recordingIdentity(suite: string, evalCase: EvalCase): CassetteIdentity {
  return {
    suite,
    caseId: evalCase.id,
    prompt: casePrompts(evalCase).join("\n\n"),
    options: shapingOptions(evalCase) as Record<string, unknown>,
  };
}
