export { type AgentTurn, agentEvents, agentTurns } from "./agent-turns.js";
export { ANTHROPIC, GEN_AI, OPERATION } from "./attributes.js";
export { type CaseTiming, MAX_ATTRIBUTE_CHARS, recordCaseSpans } from "./case-spans.js";
export { eventTimes } from "./event-times.js";
export { CaseTraceExporter, exportCaseTrace, type OtelOptions } from "./exporter.js";
