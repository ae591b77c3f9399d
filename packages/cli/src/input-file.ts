import { statSync } from "node:fs";

/** What a file that is no results file was expected to be, and what writes one. */
export const NOT_A_RESULTS_FILE =
  "(expected a results file of @evals/logging: evals run writes one, results/latest.json by default, and evals report test-output/ makes one from run folders)";

/** The largest results file `evals report` and `evals compare` read (a run with 1000 trials of full runs is far less). */
export const MAX_RESULTS_BYTES = 256 * 1024 * 1024;

/**
 * Why `path` cannot be read as a results file, in one line, or undefined: it must exist and be a
 * regular file (a FIFO would block forever, /dev/zero never ends) of at most MAX_RESULTS_BYTES.
 */
export function resultsFileProblem(path: string): string | undefined {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT"
      ? `${path}: no such file or folder (evals run writes one: <out>/latest.json, results/latest.json by default)`
      : `${path}: cannot be read (${code})`;
  }
  if (!stat.isFile()) return `${path}: not a regular file (a results file such as results/latest.json)`;
  if (stat.size > MAX_RESULTS_BYTES) {
    return `${path}: ${Math.round(stat.size / 1024 / 1024)} MiB is more than a results file holds (at most ${MAX_RESULTS_BYTES / 1024 / 1024} MiB)`;
  }
  return undefined;
}
