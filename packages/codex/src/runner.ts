// The agent-neutral runner contract codexRunner implements: @evals/core's.
export type { AgentRunner, AgentRunOptions } from "@evals/core";
