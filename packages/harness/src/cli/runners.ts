import type { EvalCase } from "@evals/evaluators";
import { type AnyAgentRunner, RunnerRegistry } from "../runner-registry.js";

/** The runner packages the `evals` command uses when they are installed: the first found is the default. */
const RUNNER_PACKAGES = [
  { name: "@evals/claude-code", runner: "claudeCodeRunner" },
  { name: "@evals/opencode", runner: "openCodeRunner" },
] as const;

let registry: Promise<RunnerRegistry> | undefined;

/**
 * The agent runners of the `evals` command, the one place they are composed: Claude Code's (the
 * default) and OpenCode's, each when its package is installed next to @evals/harness. Loaded by names
 * the package graph does not follow: the runner packages' own tests depend on @evals/harness.
 */
export function cliRunners(): Promise<RunnerRegistry> {
  registry ??= Promise.all(
    RUNNER_PACKAGES.map(async ({ name, runner }) => {
      try {
        const module = (await import(name)) as Record<string, AnyAgentRunner | undefined>;
        return module[runner];
      } catch {
        return undefined;
      }
    }),
  ).then((runners) => new RunnerRegistry(runners.filter((runner) => runner !== undefined)));
  return registry;
}

/**
 * Why the cases cannot run here: no runner package installed, or the first agent CLI they use that
 * its runner says is unavailable.
 */
export function unavailableAgentProblem(cases: EvalCase[], runners: RunnerRegistry): string | undefined {
  if (runners.names().length === 0) {
    return `no agent runner is installed: install one next to @evals/harness, e.g. \`npm install -D ${RUNNER_PACKAGES[0].name}\``;
  }
  const clis = new Set(cases.map((evalCase) => evalCase.agent.cli ?? runners.names()[0]!));
  for (const cli of clis) {
    if (!runners.has(cli)) continue;
    const reason = runners.get(cli).unavailable?.();
    if (reason !== undefined) return reason;
  }
  return undefined;
}
