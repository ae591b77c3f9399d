import type { AgentRunResult } from "@evals/core";
import { type RunAgentOptions, runAgent } from "./run-agent.js";

/** What a runner gets: runAgent's options (the shared ones every runner reads), and the agent's name. */
export interface AgentRunnerOptions extends RunAgentOptions {
  /**
   * The agent the CLI runs when it has several (OpenCode's `--agent`; a case's `agent.name`). Claude
   * Code's runner refuses it.
   */
  agentName?: string;
  /** OpenCode's `--auto` (a case's `agent.autoApprove`): grant every permission it asks for. Claude Code's runner refuses it. */
  autoApprove?: boolean;
  /** OpenCode's `permission` config (a case's `agent.permission`). Claude Code's runner refuses it. */
  permission?: Record<string, unknown>;
}

/**
 * Runs an agent CLI once and gives the same @evals/core result runAgent gives for Claude Code. A new
 * agent is a package exporting one of these as `agentRunner` (e.g. @evals/opencode's
 * `openCodeRunner`); the harness only calls it. Options a runner does not know it ignores.
 */
export type AgentRunner = (options: AgentRunnerOptions) => Promise<AgentRunResult>;

/**
 * Which agent runs: `"claude-code"` (runAgent, the default), another CLI by name (`"opencode"`: the
 * runner package `@evals/<name>` is loaded when first needed, and must export `agentRunner`), or a
 * runner itself.
 */
export type AgentChoice = "claude-code" | "opencode" | (string & {}) | AgentRunner;

/** Claude Code's runner: runAgent, which has no agent to choose by name. */
export const claudeCodeRunner: AgentRunner = async ({ agentName, autoApprove, permission, ...options }) => {
  if (agentName !== undefined) {
    throw new Error(
      `agent name ${JSON.stringify(agentName)}: Claude Code runs no named agent (agent.name is for a CLI such as opencode: set agent.cli)`,
    );
  }
  if (autoApprove !== undefined || permission !== undefined) {
    throw new Error(
      `agent.${autoApprove !== undefined ? "autoApprove" : "permission"} is OpenCode's (set agent.cli: opencode); Claude Code's is agent.permissionMode`,
    );
  }
  return runAgent(options);
};

const loaded = new Map<string, Promise<AgentRunner>>();

/** The runner of an agent choice (undefined: Claude Code). A named one is imported once. */
export function resolveAgentRunner(agent: AgentChoice | undefined): Promise<AgentRunner> {
  if (agent === undefined || agent === "claude-code") return Promise.resolve(claudeCodeRunner);
  if (typeof agent === "function") return Promise.resolve(agent);
  if (!/^[a-z0-9][a-z0-9._-]*$/.test(agent)) {
    return Promise.reject(new Error(`agent ${JSON.stringify(agent)}: not an agent CLI name (e.g. opencode)`));
  }
  let runner = loaded.get(agent);
  if (!runner) {
    runner = importRunner(agent);
    loaded.set(agent, runner);
  }
  return runner;
}

async function importRunner(name: string): Promise<AgentRunner> {
  // Named at run time: the harness does not depend on the runner packages (they depend on it).
  const specifier = `@evals/${name}`;
  let module: { agentRunner?: unknown };
  try {
    module = (await import(specifier)) as { agentRunner?: unknown };
  } catch (error) {
    throw new Error(
      `agent ${JSON.stringify(name)} needs its runner package ${specifier}, which could not be loaded (install it as a dev dependency): ${(error as Error).message}`,
    );
  }
  if (typeof module.agentRunner !== "function") {
    throw new Error(`agent ${JSON.stringify(name)}: ${specifier} exports no agentRunner function`);
  }
  return module.agentRunner as AgentRunner;
}
