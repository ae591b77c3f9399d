import { reportClient } from "./html-client.js";
import { caseDetail, type HtmlDataOptions, reportIndex } from "./html-data.js";
import { REPORT_CSS } from "./html-style.js";
import type { ResultsFile } from "./results-file.js";

export type HtmlReportOptions = HtmlDataOptions;

/**
 * A self-contained HTML report of a results file: one file, inline CSS and script, no network.
 * The case list is parsed when the page opens; each case's details and timelines sit in their own
 * JSON script element and are parsed and drawn only when the case is opened, so 1,000 cases stay fast.
 * Trials keep their timeline only when the results carry their `run`.
 */
export function renderHtmlReport(results: ResultsFile, options: HtmlReportOptions = {}): string {
  const index = reportIndex(results, options);
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
    `<style>${REPORT_CSS}</style>`,
    "</head>",
    "<body>",
    '<main class="wrap" id="app"></main>',
    `<noscript><p class="wrap">This report needs JavaScript to show its ${results.cases.length} cases.</p></noscript>`,
    `<script type="application/json" id="evals-index">${scriptJson(index)}</script>`,
  ];
  results.cases.forEach((c, n) => {
    parts.push(
      `<script type="application/json" id="case-${n}">${scriptJson(caseDetail(c, options))}</script>`,
    );
  });
  parts.push(`<script>(${reportClient.toString()})();</script>`, "</body>", "</html>", "");
  return parts.join("\n");
}

/**
 * JSON that is safe inside a <script> element: "<", ">" and "&" become \u escapes (so "</script>"
 * or "<!--" in the data cannot end or change the element), as do U+2028 and U+2029.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(UNSAFE_IN_SCRIPT, (char) => SCRIPT_ESCAPES[char]!);
}

const UNSAFE_IN_SCRIPT = /[<>&\u2028\u2029]/g;
const SCRIPT_ESCAPES: Record<string, string> = {
  "<": "\\u003c",
  ">": "\\u003e",
  "&": "\\u0026",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029",
};

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}
