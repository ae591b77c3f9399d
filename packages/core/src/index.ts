// The public API of @evals/core: each statement names what one module publishes, and nothing else of
// the package is public. The whole surface as published (declarations and types) is checked in as
// api-report.md beside package.json; `npm run api` writes it again after a change.
export * from "./agent-run.js";
export * from "./atomic-write.js";
export * from "./captured-event.js";
export * from "./captured-events-file.js";
export * from "./claude/hook-events.js";
export * from "./claude/infer-denials.js";
export * from "./claude/output.js";
export * from "./claude/stream-json.js";
export * from "./claude/vocabulary.js";
export * from "./evaluator-result.js";
export * from "./event-depth.js";
export * from "./exit-cleanup.js";
export * from "./format-version.js";
export * from "./hook-input.js";
export * from "./json-schema-of.js";
export * from "./json-schemas.js";
export * from "./jsonl-appender.js";
export * from "./jsonl-reader.js";
export * from "./opencode/run.js";
export * from "./opencode/stream.js";
export * from "./opencode/vocabulary.js";
export * from "./redact.js";
export * from "./run.js";
export * from "./run-builder.js";
export * from "./run-folder.js";
export * from "./run-folder-files.js";
export * from "./run-summary.js";
export * from "./tool-calls.js";
export * from "./watchdog.js";
