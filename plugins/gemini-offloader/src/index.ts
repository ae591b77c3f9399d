export { OPERATION_IDS, type Operation, type OperationId, type Suggestion } from "./commands/launcher.js";
export * from "./formats.js";
export { DIAGNOSTIC_TYPES, type Diagnostic, type DiagnosticType, EXIT } from "./gemini/diagnose.js";
export * from "./results.js";
export type { NamedSession, SessionHealth } from "./sessions/session-map.js";
