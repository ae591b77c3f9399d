import type { AgentRunResult, RedactOptions } from "@evals/core";
import type { z } from "zod";

// The agent-neutral runner contract (issue #27). Defined here, in the exact shape of @evals/core's
// AgentRunner (src/agent-runner.ts on the runners branch), until this branch has core's.

/** Options every agent CLI shares; each runner maps them onto its CLI, or throws a clear error naming the one option it cannot honour. */
export interface AgentRunOptions {
  /** One prompt, or several user turns. */
  prompt: string | string[];
  /** The working folder (the trial's fixture copy / worktree). */
  cwd?: string;
  /** The run folder: <outputRoot>/test-output/<runId>. */
  runId?: string;
  outputRoot?: string;
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
  killGraceMs?: number;
  signal?: AbortSignal;
  /** A runner whose CLI has no turn limit enforces it itself. */
  maxTurns?: number;
  /** Canonical names (Bash, Read, Edit, Write, Glob, Grep, ...). */
  tools?: string[];
  allowedTools?: string[];
  disallowedTools?: string[];
  model?: string;
  /** The loopback model server the harness started (see modelApi). */
  baseUrl?: string;
  apiKey?: string;
  capture?: boolean;
  keepSandbox?: "on-failure" | "always" | "never";
  redact?: RedactOptions;
}

export interface AgentRunner<Options = Record<string, unknown>> {
  /** The name a case's `agent.cli` uses. */
  readonly cli: string;
  /** Which wire format @evals/vcr serves it. */
  readonly modelApi: "anthropic-messages" | "openai-responses" | "gemini";
  /** Validates the runner's own options (a case's `agent.options`). */
  readonly optionsSchema: z.ZodType<Options>;
  run(shared: AgentRunOptions, options: Options): Promise<AgentRunResult>;
}
