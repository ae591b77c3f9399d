import { claudeCodeRunner } from "@evals/claude-code";
import type { EvalCase } from "@evals/evaluators";
import { RunnerRegistry } from "../runner-registry.js";

let registry: Promise<RunnerRegistry> | undefined;

/**
 * The agent runners of the `evals` command, the one place they are composed: Claude Code's (the
 * default), and OpenCode's when @evals/opencode is installed.
 */
export function cliRunners(): Promise<RunnerRegistry> {
  registry ??= (async () => {
    // Imported by a name the package graph does not follow: @evals/opencode's tests depend on this
    // package, so a static import would be a dependency cycle.
    const openCodePackage = "@evals/opencode";
    const openCode = await import(openCodePackage).then(
      (module: { openCodeRunner?: ConstructorParameters<typeof RunnerRegistry>[0][number] }) =>
        module.openCodeRunner,
      () => undefined,
    );
    return new RunnerRegistry([claudeCodeRunner, ...(openCode ? [openCode] : [])]);
  })();
  return registry;
}

/** Why the cases cannot run here: the first agent CLI they use that its runner says is unavailable. */
export function unavailableAgentProblem(cases: EvalCase[], runners: RunnerRegistry): string | undefined {
  const clis = new Set(cases.map((evalCase) => evalCase.agent.cli ?? runners.names()[0]));
  for (const cli of clis) {
    if (cli === undefined || !runners.has(cli)) continue;
    const reason = runners.get(cli).unavailable?.();
    if (reason !== undefined) return reason;
  }
  return undefined;
}
