import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createRedactor } from "@evals/core";
import { reserveFileName, writeFileAtomic } from "./atomic-write.js";
import { type RunsIncluded, withRunsIncluded } from "./build-results.js";
import { RESULTS_VERSION } from "./format-version.js";
import { type ResultsFile, ResultsFileSchema } from "./results-file.js";

export interface WriteJsonResultsOptions {
  /** The results folder; `results` (relative to the current directory) by default. */
  dir?: string;
  /** Which trials' runs to keep in the files (default "failed": the runs of cases that did not pass). */
  includeRuns?: RunsIncluded;
}

export interface JsonResultsFiles {
  latest: string;
  history: string;
}

/**
 * Writes `<dir>/latest.json` and `<dir>/history/<YYYY-MM>/<DD-HHMMSS>-<suite>.json` (UTC time of the
 * run's end). Each file is written atomically, its secrets redacted; a second run in the same second
 * gets `-2`, `-3`, ...
 */
export function writeJsonResults(
  results: ResultsFile,
  options: WriteJsonResultsOptions = {},
): JsonResultsFiles {
  const dir = resolve(options.dir ?? "results");
  // Secret-free whoever built the results (createRedactor: the patterns and this process's runs' secrets).
  const kept = createRedactor().value(withRunsIncluded(results, options.includeRuns ?? "failed"));
  const text = `${JSON.stringify(kept, null, 2)}\n`;
  const { folder, name } = historyName(kept);
  const history = reserveFileName(join(dir, "history", folder), name, ".json");
  writeFileAtomic(history, text);
  const latest = join(dir, "latest.json");
  writeFileAtomic(latest, text);
  return { latest, history };
}

/**
 * `YYYY-MM` and `DD-HHMMSS-<suite slug>` of a results file, from its finish time in UTC; a shard's
 * ends in `-shard-<i>-of-<n>`, so shards that share a results folder never take each other's name.
 */
export function historyName(results: Pick<ResultsFile, "meta">): { folder: string; name: string } {
  const time = new Date(results.meta.finished_at);
  const at = Number.isNaN(time.getTime()) ? new Date() : time;
  const two = (n: number) => String(n).padStart(2, "0");
  const shard = results.meta.shard;
  return {
    folder: `${at.getUTCFullYear()}-${two(at.getUTCMonth() + 1)}`,
    name: `${two(at.getUTCDate())}-${two(at.getUTCHours())}${two(at.getUTCMinutes())}${two(at.getUTCSeconds())}-${slug(results.meta.suite)}${shard ? `-shard-${shard.index}-of-${shard.count}` : ""}`,
  };
}

/** A file-name-safe form of a suite name: lower case, dashes, at most 60 characters. */
export function slug(name: string): string {
  const cleaned = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60)
    .replace(/-+$/, "");
  return cleaned || "evals";
}

/** An error in a results file, naming the file and the field. */
export class ResultsFileError extends Error {
  constructor(
    readonly file: string,
    readonly field: string | undefined,
    detail: string,
  ) {
    super(`${file}${field ? ` (field ${field})` : ""}: ${detail}`);
    this.name = "ResultsFileError";
  }
}

/** Reads and validates a results file (latest.json or a history file). */
export function readResults(file: string): ResultsFile {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new ResultsFileError(file, undefined, `cannot read: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ResultsFileError(file, undefined, `not valid JSON: ${(error as Error).message}`);
  }
  return parseResults(value, file);
}

/** Validates a parsed results object; `source` names it in errors. */
export function parseResults(value: unknown, source = "results"): ResultsFile {
  const version = (value as { version?: unknown } | null)?.version;
  if (typeof version === "number" && version > RESULTS_VERSION) {
    throw new ResultsFileError(
      source,
      "version",
      `written by a newer @evals/logging (format version ${version}); this one reads version ${RESULTS_VERSION}. Upgrade @evals/logging.`,
    );
  }
  const parsed = ResultsFileSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new ResultsFileError(source, fieldPath(issue.path), issue.message);
}

export function fieldPath(path: readonly PropertyKey[]): string {
  return path
    .map((part, i) => (typeof part === "number" ? `[${part}]` : `${i === 0 ? "" : "."}${String(part)}`))
    .join("");
}
