import type { AgentRunner } from "@evals/core";

/** A runner of any options: what the registry holds (each runner validates its own options). */
// biome-ignore lint/suspicious/noExplicitAny: a registry holds runners of every options type.
export type AnyAgentRunner = AgentRunner<any>;

/** Thrown when a case or suite names an agent CLI no registered runner runs. */
export class UnknownRunnerError extends Error {
  override readonly name = "UnknownRunnerError";
  constructor(
    readonly cli: string,
    readonly registered: readonly string[],
  ) {
    super(
      registered.length === 0
        ? `agent ${JSON.stringify(cli)}: no agent runner is registered (give the suite \`runners: new RunnerRegistry([claudeCodeRunner])\` from @evals/claude-code, or \`agent: aRunner\`)`
        : `agent ${JSON.stringify(cli)}: no runner for it is registered; the registered ones are ${registered.map((name) => JSON.stringify(name)).join(", ")} (add its runner package's runner to the RunnerRegistry)`,
    );
  }
}

/**
 * The agent runners the engine may use, by their `cli` (a case's `agent.cli`). The first one is the
 * default, for cases and suites that name none. The `evals` CLI composes it from the runner packages:
 *
 * ```ts
 * const runners = new RunnerRegistry([claudeCodeRunner, openCodeRunner]);
 * runCases("cases/", { runners });
 * ```
 */
export class RunnerRegistry {
  /** The runners by their `cli`, in the order given. */
  readonly byCli: ReadonlyMap<string, AnyAgentRunner>;

  constructor(runners: readonly AnyAgentRunner[]) {
    const byCli = new Map<string, AnyAgentRunner>();
    for (const runner of runners) {
      if (byCli.has(runner.cli)) {
        throw new Error(`RunnerRegistry: two runners for the agent CLI ${JSON.stringify(runner.cli)}`);
      }
      byCli.set(runner.cli, runner);
    }
    this.byCli = byCli;
  }

  /** The runner of `cli`; an UnknownRunnerError listing the registered ones when there is none. */
  get(cli: string): AnyAgentRunner {
    const runner = this.byCli.get(cli);
    if (!runner) throw new UnknownRunnerError(cli, this.names());
    return runner;
  }

  has(cli: string): boolean {
    return this.byCli.has(cli);
  }

  /** The registered CLIs' names, the default first. */
  names(): string[] {
    return [...this.byCli.keys()];
  }

  /** Every registered runner, the default first. */
  list(): AnyAgentRunner[] {
    return [...this.byCli.values()];
  }

  /** The runner of cases and suites that name none: the first registered; undefined when none is. */
  get default(): AnyAgentRunner | undefined {
    return this.byCli.values().next().value;
  }
}

/** Which agent runs: a runner itself, or the name (`cli`) of one in the suite's RunnerRegistry. */
export type AgentChoice = AnyAgentRunner | string;

/** What a suite says about its agent: the runner it runs (or its name), and the registry of runners. */
export interface SuiteAgents {
  agent?: AgentChoice | undefined;
  runners?: RunnerRegistry | undefined;
}

/**
 * The runner of a choice (a case's `agent.cli`, a task's runner): a runner as it is; a name from the
 * suite's `runners`, else the suite's own `agent` runner when it has that name; nothing chosen, the
 * suite's `agent`, else the registry's default. Throws a clear error when there is no runner to take.
 */
export function resolveRunner(choice: AgentChoice | undefined, suite: SuiteAgents = {}): AnyAgentRunner {
  if (typeof choice === "object") return choice;
  const { agent, runners } = suite;
  if (choice !== undefined) {
    if (runners?.has(choice)) return runners.get(choice);
    if (typeof agent === "object" && agent.cli === choice) return agent;
    const registered = [...(runners?.names() ?? []), ...(typeof agent === "object" ? [agent.cli] : [])];
    throw new UnknownRunnerError(choice, registered);
  }
  if (agent !== undefined) return resolveRunner(agent, { runners });
  const fallback = runners?.default;
  if (!fallback) {
    throw new Error(
      "no agent runner: give the suite `agent: claudeCodeRunner` (from @evals/claude-code) or `runners: new RunnerRegistry([...])`",
    );
  }
  return fallback;
}

/** The suite's runners as one registry: `runners`, with the suite's own `agent` runner when it is not in it. */
export function suiteRegistry(suite: SuiteAgents): RunnerRegistry | undefined {
  const { agent, runners } = suite;
  if (typeof agent !== "object" || runners?.has(agent.cli)) return runners;
  return new RunnerRegistry([agent, ...(runners?.list() ?? [])]);
}
