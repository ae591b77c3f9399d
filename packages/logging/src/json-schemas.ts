import { formatJsonSchema } from "@evals/core";
import { EvalTestMetaSchema } from "./case-result.js";
import { ResultsComparisonSchema } from "./compare-results.js";
import { ResultsFileSchema } from "./results-file.js";

/** The file formats of @evals/logging, by name, as zod schemas. */
export const loggingFormats = {
  results: ResultsFileSchema,
  "eval-test-meta": EvalTestMetaSchema,
  comparison: ResultsComparisonSchema,
} as const;
export type LoggingFormatName = keyof typeof loggingFormats;

/** A JSON Schema (draft 2020-12) for one of the formats, generated from its zod schema. */
export function loggingJsonSchema(name: LoggingFormatName): Record<string, unknown> {
  return formatJsonSchema("logging", name, loggingFormats[name]);
}
