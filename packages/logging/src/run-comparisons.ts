import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { type ResultsComparison, ResultsComparisonSchema } from "./compare-results.js";

/** The folder of a results folder where suites run under two variants keep their comparisons. */
export const VARIANTS_FOLDER = "variants";

/** A suite's comparison folder in a results folder: `<resultsDir>/variants/<name>/`. */
export interface RunComparisonFolder {
  /** The folder's name (the suite's slug). */
  name: string;
  /** The folder: each variant's results (`<variant>.json`), comparison.json, comparison.html. */
  dir: string;
  /** Its `comparison.json`. */
  file: string;
}

/**
 * The comparison folders of `<resultsDir>/variants/` whose `comparison.json` was written since
 * `since` (by this run, not an earlier one), by folder name.
 */
export function runComparisonFolders(resultsDir: string, since: Date): RunComparisonFolder[] {
  const root = join(resultsDir, VARIANTS_FOLDER);
  let names: string[];
  try {
    names = readdirSync(root).sort();
  } catch {
    return [];
  }
  return names
    .map((name) => ({ name, dir: join(root, name), file: join(root, name, "comparison.json") }))
    .filter(({ file }) => {
      try {
        return statSync(file).mtimeMs >= since.getTime();
      } catch {
        return false;
      }
    });
}

/**
 * The with/without comparisons written in `<resultsDir>/variants/<suite>/comparison.json` since
 * `since` (by this run, not an earlier one), by suite folder name. One that cannot be read is left
 * out with a warning naming the file: the report is still written.
 */
export function readRunComparisons(resultsDir: string, since: Date): ResultsComparison[] {
  const comparisons: ResultsComparison[] = [];
  for (const { file } of runComparisonFolders(resultsDir, since)) {
    try {
      comparisons.push(ResultsComparisonSchema.parse(JSON.parse(readFileSync(file, "utf8"))));
    } catch (error) {
      process.emitWarning(
        `${file} is not a comparison, left out of the report: ${(error as Error).message.split("\n")[0]}`,
        "EvalsReport",
      );
    }
  }
  return comparisons;
}
