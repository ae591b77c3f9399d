// The public API of @evals/otel: each statement names what one module publishes, and nothing else of
// the package is public. The whole surface as published (declarations and types) is checked in as
// api/<name>.api.md (API Extractor); `npm run api` writes it again after a change.
// The attribute names the spans carry.
export { ANTHROPIC, GEN_AI } from "./attributes.js";
export { type CaseTiming, MAX_ATTRIBUTE_CHARS, recordCaseSpans } from "./case-spans.js";
export { CaseTraceExporter, exportCaseTrace, type OtelOptions } from "./exporter.js";
