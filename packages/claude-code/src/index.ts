// The public API of @evals/claude-code: each statement names what one module publishes, and nothing else
// of the package is public. The whole surface as published (declarations and types) is checked in as
// api-report.md beside package.json; `npm run api` writes it again after a change.
// @evals/claude-code: run the real Claude Code CLI headless and hermetic, and gather what it did into
// one @evals/core Run: the Claude Code runner of the @evals harness.

// The command line of one headless run.
export { type ClaudeArgsInput, type ClaudeFlags, claudeArgs, userMessageLine } from "./claude-args.js";
export {
  type ClaudeAvailability,
  ClaudeNotFoundError,
  claudeAvailable,
  type FindClaudeOptions,
  findClaude,
  type SkipMeta,
  type SkippableContext,
  SUPPORTED_CLAUDE_VERSION,
  skipIfNoClaude,
} from "./claude-bin.js";
export {
  type AgentDefinition,
  AgentDefinitionSchema,
  CLAUDE_CODE_PATH_OPTIONS,
  type ClaudeCodeOptions,
  ClaudeCodeOptionsSchema,
} from "./options.js";
export {
  backfillStreamIds,
  type HookCoverage,
  type ReconcileInput,
  reconcileRun,
  reconcileRuns,
} from "./reconcile.js";
export { type RunAgentOptions, type RunAgentResult, runAgent } from "./run-agent.js";
export { claudeCodeRunner } from "./runner.js";
// The prompts and instruction files of a run, from the session's transcript (instead of hooks).
export { findTranscript, transcriptEvents } from "./transcript.js";
