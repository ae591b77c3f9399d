import type { ResultsComparison } from "./compare-results.js";
import { COMPARISON_CSS, comparisonSection } from "./comparison-section.js";
import { escapeHtml } from "./html-escape.js";
import { REPORT_CSS } from "./html-style.js";

export interface ComparisonHtmlOptions {
  /** The page's title (default "<label A> vs <label B> · <suite>"). */
  title?: string;
}

/**
 * A self-contained HTML page of a comparison (compareResults): A and B side by side per case and
 * overall, each pass rate as a bar with its 95% interval drawn over it, B − A with its interval and
 * the verdict, and the deltas. Static: no script, nothing loads from anywhere. The HTML report shows
 * the same section when given the comparison (renderHtmlReport's `comparison` option).
 */
export function renderComparisonHtml(
  comparison: ResultsComparison,
  options: ComparisonHtmlOptions = {},
): string {
  const title = options.title ?? `${comparison.a.label} vs ${comparison.b.label} · ${comparison.b.suite}`;
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    '<meta name="generator" content="@evals/logging">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${REPORT_CSS}${COMPARISON_CSS}</style>`,
    "</head>",
    "<body>",
    '<main class="wrap">',
    `<h1>${escapeHtml(title)}</h1>`,
    comparisonSection(comparison),
    "</main>",
    "</body>",
    "</html>",
    "",
  ].join("\n");
}
