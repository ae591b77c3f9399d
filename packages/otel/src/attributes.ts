/**
 * The attribute names the spans carry. GenAI ones follow the OpenTelemetry GenAI semantic conventions
 * (still "development" there, so copied here rather than imported from the incubating entry point);
 * `gen_ai.usage.cost` is not in them, but Langfuse reads it as the observation's cost. The
 * framework's own (case, trial, scores) are under `evals.`.
 */
export const GEN_AI = {
  operation: "gen_ai.operation.name",
  provider: "gen_ai.provider.name",
  agentName: "gen_ai.agent.name",
  agentId: "gen_ai.agent.id",
  conversationId: "gen_ai.conversation.id",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  responseId: "gen_ai.response.id",
  finishReasons: "gen_ai.response.finish_reasons",
  outputMessages: "gen_ai.output.messages",
  inputMessages: "gen_ai.input.messages",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  cacheReadTokens: "gen_ai.usage.cache_read.input_tokens",
  cacheCreationTokens: "gen_ai.usage.cache_creation.input_tokens",
  cost: "gen_ai.usage.cost",
  toolName: "gen_ai.tool.name",
  toolType: "gen_ai.tool.type",
  toolCallId: "gen_ai.tool.call.id",
  toolArguments: "gen_ai.tool.call.arguments",
  toolResult: "gen_ai.tool.call.result",
  evaluationEvent: "gen_ai.evaluation.result",
  evaluationName: "gen_ai.evaluation.name",
  evaluationScore: "gen_ai.evaluation.score.value",
  evaluationLabel: "gen_ai.evaluation.score.label",
} as const;

/** The operation names of the GenAI conventions that the spans use. */
export const OPERATION = {
  agent: "invoke_agent",
  chat: "chat",
  tool: "execute_tool",
} as const;

/** The provider of the models Claude Code calls. */
export const ANTHROPIC = "anthropic";
