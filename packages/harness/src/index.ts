// @evals/harness: run the real Claude Code CLI headless and hermetic, normalize what it did into
// one @evals/core Run, and turn scorers into vitest tests with trial statistics.

export {
  type AgentDefinition,
  type ClaudeArgsInput,
  type ClaudeFlags,
  claudeArgs,
  type PermissionMode,
  userMessageLine,
} from "./claude-args.js";
export {
  type ClaudeAvailability,
  ClaudeNotFoundError,
  claudeAvailable,
  type FindClaudeOptions,
  findClaude,
  type SkippableContext,
  SUPPORTED_CLAUDE_VERSION,
  skipIfNoClaude,
} from "./claude-bin.js";
export {
  isAlive,
  type KillTreeOptions,
  killProcessTree,
  listProcesses,
  type ProcessInfo,
  RUN_MARKER_ENV,
  runProcesses,
} from "./process-tree.js";
export {
  backfillStreamIds,
  type ReconcileInput,
  reconcileRun,
  reconcileRuns,
} from "./reconcile.js";
export { type RunAgentOptions, type RunAgentResult, runAgent } from "./run-agent.js";
export { INHERITED_ENV, newRunId } from "./sandbox.js";
