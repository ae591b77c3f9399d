import { formatJsonSchema } from "@evals/core";
import { z } from "zod";
import { HISTORY_DIGEST_VERSION } from "./history-digest.js";

// The history digest's format (see history-digest.ts), for other readers and the shipped JSON
// Schemas (schemas/history-digest-*.json). evals history checks a line's shape by hand instead:
// loading zod would cost it a third of its time.

/** The digest's first line. */
export const HistoryDigestHeaderSchema = z.object({
  format: z.literal("evals-history-digest"),
  version: z.literal(HISTORY_DIGEST_VERSION),
});

/** Each later line: a whole run and the verdicts of its cases that ran (not skipped). */
export const HistoryDigestRunSchema = z.object({
  id: z.string(),
  finished_at: z.iso.datetime(),
  git_commit: z.string().nullable(),
  cases: z.array(
    z.tuple([
      z.string().describe("suite (empty for none)"),
      z.string().describe("case id"),
      z.string().describe("status"),
      z.number().int().nonnegative().describe("passed trials"),
      z.number().int().nonnegative().describe("trials"),
    ]),
  ),
});

/** The JSON Schemas of the digest's lines, by file name (schemas/<name>.json). */
export function historyDigestJsonSchemas(): Record<string, Record<string, unknown>> {
  return {
    "history-digest-header": formatJsonSchema("store", "history-digest-header", HistoryDigestHeaderSchema),
    "history-digest-run": formatJsonSchema("store", "history-digest-run", HistoryDigestRunSchema),
  };
}
