/**
 * What differs between two Codex CLI runs of the same scenario in a Responses API request
 * (observed with 0.169.0), masked before a replay matches it (see normalize.ts for the rest):
 * the date and timezone of `<environment_context>`, the chunk id and wall time of each tool output,
 * the CLI's ids of the input items, and the per-run `prompt_cache_key` and `client_metadata`
 * (thread, session, turn and installation ids). The cwd and CODEX_HOME are masked like Claude
 * Code's cwd and config dir.
 */

/** `[pattern, replacement, needle]` rewrites of every string of a request. */
export const RESPONSES_LINE_RULES: Array<[RegExp, string, string]> = [
  [/<current_date>[^<]*<\/current_date>/g, "<current_date><date></current_date>", "<current_date>"],
  [/<timezone>[^<]*<\/timezone>/g, "<timezone><timezone></timezone>", "<timezone>"],
  [/^Chunk ID: \w+$/gm, "Chunk ID: <chunk>", "Chunk ID: "],
  [/^Wall time: [\d.]+ seconds$/gm, "Wall time: <duration>", "Wall time: "],
];

/** A Responses API request body without the ids that are new on every run. */
export function withoutRunIds(body: unknown): unknown {
  if (body === null || typeof body !== "object" || !Array.isArray((body as { input?: unknown }).input)) {
    return body;
  }
  const { prompt_cache_key: _key, client_metadata: _metadata, ...rest } = body as Record<string, unknown>;
  rest.input = (rest.input as unknown[]).map((item) => {
    if (item === null || typeof item !== "object" || Array.isArray(item)) return item;
    const { id: _id, ...kept } = item as Record<string, unknown>;
    return kept;
  });
  return rest;
}
