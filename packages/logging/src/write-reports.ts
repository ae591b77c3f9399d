import { join, resolve } from "node:path";
import { createRedactor } from "@evals/core";
import { writeFileAtomic } from "./atomic-write.js";
import { type BuildResultsOptions, buildResults } from "./build-results.js";
import { type CaseResult, CaseResultSchema } from "./case-result.js";
import { type HtmlReportOptions, renderHtmlReport } from "./html-report.js";
import { fieldPath, type WriteJsonResultsOptions, writeJsonResults } from "./json-results.js";
import { renderJunit } from "./junit.js";
import type { ResultsFile } from "./results-file.js";

export interface WriteReportsOptions extends BuildResultsOptions, WriteJsonResultsOptions {
  /** JUnit XML: true (default) writes `<dir>/junit.xml`, a string is the file to write, false skips it. */
  junit?: boolean | string;
  /** HTML report: true (default) writes `<dir>/report.html`, a string is the file to write, false skips it. */
  html?: boolean | string;
  htmlOptions?: HtmlReportOptions;
}

export interface WrittenReports {
  results: ResultsFile;
  files: { latest: string; history: string; junit?: string; html?: string };
}

/**
 * Everything an eval run leaves behind, from its case results: `results/latest.json` and the
 * history file (always), `results/junit.xml` and `results/report.html` (unless turned off). Every
 * file is written atomically, its secrets redacted (@evals/core's createRedactor). The HTML report gets every trial's run; the JSON files keep the runs
 * `includeRuns` asks for (by default those of cases that did not pass).
 */
export function writeReports(given: CaseResult[], options: WriteReportsOptions = {}): WrittenReports {
  // The cases as their schema reads them (its field order): the same files whether the cases come
  // straight from a run or back from results files (the shards' files that mergeShardResults joins).
  const cases = given.map((c, i) => {
    const parsed = CaseResultSchema.safeParse(c);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const name = typeof c?.id === "string" ? ` "${c.id}"` : "";
      throw new TypeError(`case ${i}${name} (field ${fieldPath(issue.path) || "(root)"}): ${issue.message}`);
    }
    return parsed.data;
  });
  const dir = resolve(options.dir ?? "results");
  // Redacted before rendering: a secret HTML- or XML-escaped in a report would no longer be found.
  const results = createRedactor().value(buildResults(cases, options));
  const files: WrittenReports["files"] = writeJsonResults(results, { dir, ...pickRuns(options) });
  if (options.junit !== false) {
    const file = typeof options.junit === "string" ? resolve(options.junit) : join(dir, "junit.xml");
    writeFileAtomic(file, renderJunit(results));
    files.junit = file;
  }
  if (options.html !== false) {
    const file = typeof options.html === "string" ? resolve(options.html) : join(dir, "report.html");
    writeFileAtomic(file, renderHtmlReport(results, options.htmlOptions));
    files.html = file;
  }
  return { results, files };
}

function pickRuns(options: WriteReportsOptions): Pick<WriteJsonResultsOptions, "includeRuns"> {
  return options.includeRuns ? { includeRuns: options.includeRuns } : {};
}
