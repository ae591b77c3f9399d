// Everything the `evals` commands know about the agents they run or grade, in one place: the runner
// registry they hand the engine, composed from the runner packages this CLI depends on.
import { claudeCodeRunner } from "@evals/claude-code";
import { codexRunner, runFromCodexJsonl } from "@evals/codex";
import type { AgentOutputReader, EvalCase, LoadStoredRunOptions } from "@evals/evaluators";
import { geminiRunner, parseGeminiOutput } from "@evals/gemini-cli";
import { RunnerRegistry } from "@evals/harness";
import { openCodeRunner } from "@evals/opencode";
import { apiKeyEnv } from "@evals/vcr";
import { UsageError } from "./errors.js";

let registry: RunnerRegistry | undefined;

/** The agent runners of the `evals` command: Claude Code's (the default), OpenCode's, Codex's and Gemini CLI's. */
export function cliRunners(): RunnerRegistry {
  registry ??= new RunnerRegistry([claudeCodeRunner, openCodeRunner, codexRunner, geminiRunner]);
  return registry;
}

/** The bare .jsonl readers of the runner packages: `codex exec --json` and `gemini --output-format stream-json`. */
const OUTPUT_READERS: Record<"codex" | "gemini", AgentOutputReader> = {
  codex: {
    agent: "codex",
    read: (text, _file, { runId, prompts }) =>
      runFromCodexJsonl(text, { runId, ...(prompts ? { prompts } : {}) }),
  },
  gemini: { agent: "gemini", read: (text, file, options) => parseGeminiOutput(text, file, options) },
};

/** The agents whose stored output `evals grade --agent` reads. */
export const GRADE_AGENTS = ["claude-code", "opencode", "codex", "gemini"] as const;
export type GradeAgent = NonNullable<LoadStoredRunOptions["agent"]>;

/** `evals grade --agent <name>`, checked: a UsageError naming the agents it knows. */
export function gradeAgent(name: string | undefined): GradeAgent | undefined {
  if (name === undefined) return undefined;
  if (name === "codex" || name === "gemini") return OUTPUT_READERS[name];
  if (name === "claude-code" || name === "opencode") return name;
  throw new UsageError(
    `--agent must be ${GRADE_AGENTS.slice(0, -1).join(", ")} or ${GRADE_AGENTS.at(-1)}, not ${JSON.stringify(name)}`,
  );
}

/** The case's agent CLI: its `agent.cli`, else the registry's default (Claude Code). */
export function caseAgent(evalCase: EvalCase, runners: RunnerRegistry): string {
  return evalCase.agent.cli ?? runners.names()[0]!;
}

/**
 * The env var of the key that records the real API the case's agent speaks: ANTHROPIC_API_KEY
 * (Claude Code, OpenCode), OPENAI_API_KEY (Codex), GEMINI_API_KEY (Gemini CLI).
 */
export function caseApiKeyEnv(evalCase: EvalCase, runners: RunnerRegistry): string {
  const cli = caseAgent(evalCase, runners);
  return apiKeyEnv(runners.has(cli) ? runners.get(cli).modelApi : undefined);
}

/** Why the cases cannot run here: the first agent CLI they use that its runner says is unavailable. */
export function unavailableAgentProblem(cases: EvalCase[], runners: RunnerRegistry): string | undefined {
  const clis = new Set(cases.map((evalCase) => caseAgent(evalCase, runners)));
  for (const cli of clis) {
    if (!runners.has(cli)) continue;
    const reason = runners.get(cli).unavailable?.();
    if (reason !== undefined) return reason;
  }
  return undefined;
}
