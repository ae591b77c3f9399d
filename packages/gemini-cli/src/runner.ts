import type { AgentRunner, AgentRunOptions } from "@evals/core";
import { z } from "zod";
import { type RunGeminiOptions, runGemini } from "./run-gemini.js";
import { geminiToolsFor } from "./vocabulary.js";

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
  const { tools, allowedTools, disallowedTools, capture, ...rest } = shared;
  const core = geminiNames(tools);
  const allowed = geminiNames(allowedTools);
  const excluded = geminiNames(disallowedTools);
  return {
    ...rest,
    // Gemini CLI's hooks are command hooks: "http" and "command" (Claude Code's choices) both mean on.
    ...(capture !== undefined ? { capture: capture !== false } : {}),
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
