import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { type ResultsComparison, ResultsComparisonSchema } from "./compare-results.js";

/** The folder of a results folder where suites run under two variants keep their comparisons. */
export const VARIANTS_FOLDER = "variants";

/**
 * The with/without comparisons written in `<resultsDir>/variants/<suite>/comparison.json` since
 * `since` (by this run, not an earlier one), by suite folder name. One that cannot be read is left
 * out with a warning naming the file: the report is still written.
 */
export function readRunComparisons(resultsDir: string, since: Date): ResultsComparison[] {
  const dir = join(resultsDir, VARIANTS_FOLDER);
  let suites: string[];
  try {
    suites = readdirSync(dir).sort();
  } catch {
    return [];
  }
  const comparisons: ResultsComparison[] = [];
  for (const suite of suites) {
    const file = join(dir, suite, "comparison.json");
    try {
      if (statSync(file).mtimeMs < since.getTime()) continue;
    } catch {
      continue;
    }
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
