import type { AgentRunResult, RedactOptions } from "@evals/core";
import { z } from "zod";
import { type RunGeminiOptions, runGemini } from "./run-gemini.js";
import { geminiToolsFor } from "./vocabulary.js";

// The agent-neutral runner contract (issue #27), as @evals/core will define it: kept here, same
// shape, until core has it (the lead switches these to core's when merging).

/** Options every agent CLI shares; each runner maps them onto its CLI, or throws naming the one it cannot honour. */
export interface AgentRunOptions {
  prompt: string | string[];
  cwd?: string;
  runId?: string;
  outputRoot?: string;
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
  killGraceMs?: number;
  signal?: AbortSignal;
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

/** Gemini CLI's own options (a case's `agent.options`). */
export const GeminiOptionsSchema = z
  .object({
    /** `--approval-mode` (default yolo: in the other modes a headless run declares only read-only tools). */
    approvalMode: z.enum(["default", "auto_edit", "yolo", "plan"]).optional(),
    /** Gemini settings merged over the runner's (its auth, privacy, retention and capture hook stay). */
    settings: z.record(z.string(), z.unknown()).optional(),
    /** `--include-directories`. */
    includeDirectories: z.array(z.string()).optional(),
    /** USD per million tokens by model, for the run's cost (default GEMINI_PRICES). */
    pricing: z
      .record(z.string(), z.object({ input: z.number(), output: z.number(), cached: z.number().optional() }))
      .optional(),
    /** The `gemini` executable (default EVALS_GEMINI_BIN, node_modules/.bin, PATH). */
    geminiBin: z.string().optional(),
  })
  .strict();
export type GeminiOptions = z.infer<typeof GeminiOptionsSchema>;

function geminiNames(shared: string[] | undefined): string[] | undefined {
  return shared?.flatMap(geminiToolsFor);
}

/** The runGemini options of a shared run and Gemini's own: canonical tool names mapped to Gemini's. */
export function geminiRunOptions(shared: AgentRunOptions, options: GeminiOptions = {}): RunGeminiOptions {
  const { tools, allowedTools, disallowedTools, ...rest } = shared;
  const core = geminiNames(tools);
  const allowed = geminiNames(allowedTools);
  const excluded = geminiNames(disallowedTools);
  return {
    ...rest,
    ...options,
    ...(core ? { coreTools: core } : {}),
    ...(allowed ? { allowedTools: allowed } : {}),
    ...(excluded ? { excludeTools: excluded } : {}),
  };
}

/**
 * The Gemini CLI runner: `cli: "gemini"`, served the Gemini API by @evals/vcr. Shared options map
 * onto the CLI (`maxTurns` -> `model.maxSessionTurns`, `tools` / `allowedTools` / `disallowedTools` ->
 * `tools.core` / `tools.allowed` / `tools.exclude` with Gemini's names), Gemini's own are in
 * GeminiOptionsSchema.
 */
export const geminiRunner: AgentRunner<GeminiOptions> = {
  cli: "gemini",
  modelApi: "gemini",
  optionsSchema: GeminiOptionsSchema,
  run(shared, options) {
    return runGemini(geminiRunOptions(shared, GeminiOptionsSchema.parse(options ?? {})));
  },
};
