import { TRIAL_PREFIX } from "./workspace.js";

/**
 * What differs between two runs of the same scenario in the plugin's output, and therefore in the
 * tool results Claude sends back to the model: replays match requests with these masked (on top of
 * @evals/vcr's own normalization, which already masks the working directory, dates and ids of
 * Claude Code itself). Without them, the first tool result holding a fresh Gemini session id or a
 * timestamp would make a replay diverge.
 *
 * Every value masked here is checked by the suites' outcome scorers instead, on the real files of
 * the run being replayed.
 */
export const OFFLOADER_MASKS: Array<[RegExp, string]> = [
  // The trial folder outside the project (the offloader base), wherever the machine's tmpdir is.
  [new RegExp(`(?:/[^\\s"'\\\\/<>]+)*/${TRIAL_PREFIX}[A-Za-z0-9]+`, "g"), "<trial>"],
  // The workspace's Gemini CLI, wherever the checkout is.
  [/(?:\/[^\s"'\\/<>]+)*\/node_modules\/@google\/gemini-cli\/[^\s"'\\]+/g, "<gemini-cli>"],
  // Gemini session ids and any other UUID.
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, "<uuid>"],
  // Timestamps, also in Gemini's chat file names (session-2026-11-22T01-11-1d59b7db.jsonl).
  [/\b\d{4}-\d{2}-\d{2}T\d{2}[:-]\d{2}(?:[:-]\d{2}(?:\.\d+)?)?Z?/g, "<time>"],
  // Memory ids: mem_<time>_<random>.
  [/\bmem_[a-z0-9]+_[0-9a-f]+\b/g, "<memory-id>"],
  // Project hashes (of the project's path), cache keys and short session ids.
  [/\b[0-9a-f]{8,64}\b/g, "<hex>"],
  // How long a script or Gemini took.
  [/"duration_ms": \d+/g, '"duration_ms": 0'],
];
