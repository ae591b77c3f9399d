/**
 * Redaction lives in @evals/core (one redactor for every file the framework writes); re-exported here
 * so that existing imports from @evals/vcr keep working.
 */
export {
  createRedactor,
  REDACTED,
  type RedactOptions,
  type Redactor,
  SECRET_HEADERS,
} from "@evals/core";
