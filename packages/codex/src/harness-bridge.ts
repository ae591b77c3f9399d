import type { AgentRunResult } from "@evals/core";
import { codexRunner } from "./codex-runner.js";
import type { AgentRunOptions } from "./runner.js";

/** The shared options a harness run passes on to Codex, as the runner contract names them. */
const SHARED_OPTIONS = new Set<string>([
  "prompt",
  "cwd",
  "runId",
  "outputRoot",
  "env",
  "timeoutMs",
  "killGraceMs",
  "signal",
  "maxTurns",
  "tools",
  "allowedTools",
  "disallowedTools",
  "model",
  "baseUrl",
  "apiKey",
  "capture",
  "keepSandbox",
  "redact",
]);
/** Harness options about Claude Code's stream that mean nothing to Codex (not an option of the case). */
const HARNESS_ONLY = new Set<string>(["onStreamLine"]);

/**
 * What the harness loads for a case's `agent.cli: codex` (it imports `@evals/<cli>` and calls its
 * `agentRunner` with the case's run options): codexRunner with Codex's default options. A case
 * option Codex cannot honour (Claude Code's permissionMode, OpenCode's agent name, ...) is an error
 * naming it. Until the case file has `agent.options`, Codex's own options are codexRunner's to give.
 */
export async function agentRunner(options: Record<string, unknown>): Promise<AgentRunResult> {
  const unknown = Object.keys(options).filter(
    (name) => options[name] !== undefined && !SHARED_OPTIONS.has(name) && !HARNESS_ONLY.has(name),
  );
  if (unknown.length > 0) {
    throw new Error(
      `Codex runs without ${unknown.map((name) => `agent.${name === "agentName" ? "name" : name}`).join(", ")}: those are another CLI's options (Claude Code's or OpenCode's); Codex's own are sandbox, approvalPolicy, config and hooks (codexRunner.run(shared, options))`,
    );
  }
  const shared = Object.fromEntries(
    Object.entries(options).filter(([name]) => SHARED_OPTIONS.has(name)),
  ) as unknown as AgentRunOptions;
  return codexRunner.run(shared, {});
}
