import { type CodexOptions, CodexOptionsSchema } from "./codex-options.js";
import { runCodex } from "./run-codex.js";
import type { AgentRunner } from "./runner.js";

/**
 * The runner for a case's `agent.cli: codex`: the shared options (prompt, cwd, maxTurns, model,
 * baseUrl, ...) mapped onto `codex exec`, Codex's own (`agent.options`: sandbox, approvalPolicy,
 * config, hooks, retries) validated by CodexOptionsSchema. Served the OpenAI Responses API by @evals/vcr.
 */
export const codexRunner: AgentRunner<CodexOptions> = {
  cli: "codex",
  modelApi: "openai-responses",
  optionsSchema: CodexOptionsSchema,
  run: (shared, options) => runCodex(shared, options),
};
