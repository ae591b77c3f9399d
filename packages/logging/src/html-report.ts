import { type ResultsComparison, ResultsComparisonSchema } from "./compare-results.js";
import { COMPARISON_CSS, comparisonSection } from "./comparison-section.js";
import { caseDetail, type HtmlDataOptions, reportIndex } from "./html-data.js";
import { escapeHtml, scriptJson } from "./html-escape.js";
import { staticReportHtml } from "./html-static.js";
import { REPORT_CSS } from "./html-style.js";
import { reportClientScript } from "./report-client-script.js";
import type { ResultsFile } from "./results-file.js";

export { escapeHtml, scriptJson } from "./html-escape.js";

export interface HtmlReportOptions extends HtmlDataOptions {
  /**
   * A with/without comparison (compareResults, e.g. of this run against a baseline) to show side by
   * side under the summary: each variant's pass rate with its 95% interval, B − A with its interval,
   * the verdict ("within noise" when the interval contains 0) and the deltas, per case and overall.
   * Several (e.g. one per suite run under variants) are shown one after the other.
   */
  comparison?: ResultsComparison | ResultsComparison[];
}

/**
 * A self-contained HTML report of a results file: one file, inline CSS and script, no network.
 * The case list is parsed when the page opens; each case's details and timelines sit in their own
 * JSON script element and are parsed and drawn only when the case is opened, so 1,000 cases stay fast.
 * Trials keep their timeline only when the results carry their `run`.
 */
export function renderHtmlReport(results: ResultsFile, options: HtmlReportOptions = {}): string {
  const index = reportIndex(results, options);
  const comparisons = (Array.isArray(options.comparison) ? options.comparison : [options.comparison])
    .filter((comparison) => comparison !== undefined)
    .map(checkedComparison);
  const parts: string[] = [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    // Nothing may load from anywhere: the report works offline and data cannot call out.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">`,
    '<meta name="generator" content="@evals/logging">',
    `<title>${escapeHtml(index.title)}</title>`,
    `<style>${REPORT_CSS}${comparisons.length > 0 ? COMPARISON_CSS : ""}</style>`,
    "</head>",
    "<body>",
    // Without JavaScript the page shows its essentials (#static-report); the script replaces them with
    // the interactive page in #app, moving the comparison (static HTML) under the summary.
    '<main class="wrap" id="app">',
    staticReportHtml(results, index.title),
    comparisonsHtml(comparisons),
    "</main>",
    `<noscript><p class="wrap">The timelines, filters and trial details need JavaScript.</p></noscript>`,
    `<script type="application/json" id="evals-index">${scriptJson(index)}</script>`,
  ];
  results.cases.forEach((c, n) => {
    parts.push(
      `<script type="application/json" id="case-${n}">${scriptJson(caseDetail(c, options))}</script>`,
    );
  });
  parts.push(`<script>${reportClientScript()}</script>`, "</body>", "</html>", "");
  return parts.join("\n");
}

/** The comparisons as static HTML in one element with id "comparison" (the script moves it). */
function comparisonsHtml(comparisons: ResultsComparison[]): string {
  if (comparisons.length === 0) return "";
  const section = (comparison: ResultsComparison, id: string) =>
    [
      `<section class="comparison"${id}>`,
      `<h2>Comparison: ${escapeHtml(comparison.b.label)} against ${escapeHtml(comparison.a.label)}</h2>`,
      comparisonSection(comparison),
      "</section>",
    ].join("\n");
  if (comparisons.length === 1) return section(comparisons[0]!, ' id="comparison"');
  return `<div class="comparisons" id="comparison">\n${comparisons.map((c) => section(c, "")).join("\n")}\n</div>`;
}

/** The comparison as compareResults makes it (version 1), or an error that says which field is wrong. */
function checkedComparison(comparison: ResultsComparison): ResultsComparison {
  const parsed = ResultsComparisonSchema.safeParse(comparison);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new Error(
    `renderHtmlReport: options.comparison is not a comparison of compareResults (field ${issue.path.join(".") || "(root)"}: ${issue.message})`,
  );
}
