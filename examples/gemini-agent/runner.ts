import { geminiRunner } from "@evals/gemini-cli";
import type { AgentRunner } from "@evals/harness";

/**
 * The harness's runner for Gemini CLI: the shared options the harness gives each trial (prompt,
 * fixture copy, loopback model server, run folder, limits) handed to @evals/gemini-cli's
 * geminiRunner. Claude Code's own options have no Gemini meaning and are refused.
 */
export const geminiAgent: AgentRunner = async (options) => {
  const claudeOnly = [
    "permissionMode",
    "systemPrompt",
    "appendSystemPrompt",
    "pluginDirs",
    "agents",
    "settings",
  ].filter((name) => (options as unknown as Record<string, unknown>)[name] !== undefined);
  if (claudeOnly.length > 0)
    throw new Error(`Gemini CLI runs without Claude Code's ${claudeOnly.join(", ")}`);
  return geminiRunner.run(
    {
      prompt: options.prompt,
      ...(options.cwd ? { cwd: options.cwd } : {}),
      ...(options.runId ? { runId: options.runId } : {}),
      ...(options.outputRoot ? { outputRoot: options.outputRoot } : {}),
      ...(options.env ? { env: options.env } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
      ...(options.tools ? { tools: options.tools } : {}),
      ...(options.allowedTools ? { allowedTools: options.allowedTools } : {}),
      ...(options.disallowedTools ? { disallowedTools: options.disallowedTools } : {}),
      ...(options.model ? { model: options.model } : {}),
      ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    },
    {},
  );
};
