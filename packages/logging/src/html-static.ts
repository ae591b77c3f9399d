import type { CaseResult } from "./case-result.js";
import { describeScore } from "./case-summary.js";
import { formatCost, formatDuration, formatPercent, plural } from "./format.js";
import { textPrefix } from "./html-data.js";
import { escapeHtml } from "./html-escape.js";
import type { ResultsFile } from "./results-file.js";

/** Most failing rules listed per case; the rest are counted. */
const MAX_FAILURES = 10;
/** Longest message shown (the timeline, with JavaScript, has the whole of it). */
const MAX_MESSAGE = 600;

const STATUS_RANK: Record<string, number> = { error: 0, failed: 1, passed: 2, skipped: 3 };

/**
 * The report's essentials as plain HTML, readable without JavaScript (a mail client, a CI artifact
 * viewer, a locked-down browser): the summary counts, every case's verdict, and for each case that
 * did not pass, the rules that failed with their messages, failures first. The script replaces it
 * with the interactive page.
 */
export function staticReportHtml(results: ResultsFile, title: string): string {
  const order = results.cases
    .map((c, n) => ({ c, n }))
    .sort((a, b) => (STATUS_RANK[a.c.status] ?? 9) - (STATUS_RANK[b.c.status] ?? 9) || a.n - b.n);
  return [
    '<section id="static-report" class="static-report">',
    `<h1>${escapeHtml(title)}</h1>`,
    `<p class="static-summary">${summaryLine(results.summary)}</p>`,
    '<table class="static-cases">',
    "<thead><tr><th>verdict</th><th>case</th><th>what failed</th></tr></thead>",
    "<tbody>",
    ...order.map(({ c }) => caseRowHtml(c)),
    "</tbody>",
    "</table>",
    "</section>",
  ].join("\n");
}

function summaryLine(summary: ResultsFile["summary"]): string {
  const ran = summary.total - summary.skipped;
  const { error, warning, info, expected } = summary.violations;
  const cost = formatCost(summary.cost_usd);
  return [
    `<b>${summary.passed} of ${plural(ran, "case")} passed</b> (${formatPercent(summary.pass_rate)})`,
    `${summary.failed} failed`,
    `${summary.errored} errored`,
    `${summary.skipped} skipped`,
    plural(summary.trials, "trial"),
    `violations: ${error} errors, ${warning} warnings, ${info} info${expected ? `, ${expected} expected` : ""}`,
    `<span class="static-duration">${formatDuration(summary.duration_ms)}</span>`,
    ...(cost ? [cost] : []),
  ].join(" · ");
}

function caseRowHtml(c: CaseResult): string {
  const passedTrials = c.trials.filter((trial) => trial.status === "passed").length;
  const trials = c.trials.length > 1 ? ` · ${passedTrials} of ${c.trials.length} trials passed` : "";
  const name =
    `<span class="case-name">${escapeHtml(c.name)}</span>` +
    (c.id !== c.name ? ` <code class="case-id">${escapeHtml(c.id)}</code>` : "") +
    trials;
  return `<tr data-status="${escapeHtml(c.status)}"><td class="verdict v-${escapeHtml(c.status)}">${escapeHtml(c.status)}</td><td>${name}</td><td>${failuresHtml(c)}</td></tr>`;
}

/** What made the case fail: its failing rules with their messages first, then the scorers and the case's error. */
function failuresHtml(c: CaseResult): string {
  if (c.status === "passed" || c.status === "skipped") return "";
  const errors = c.violations.filter((v) => v.severity === "error" && !v.expected);
  // The same violation in several trials is listed once, with how many trials had it.
  const distinct = new Map<string, { label: string; message: string; count: number }>();
  for (const v of errors) {
    const label = `${v.rule}/${v.type}`;
    const key = `${label}\n${v.message}`;
    const seen = distinct.get(key);
    if (seen) seen.count++;
    else distinct.set(key, { label, message: v.message, count: 1 });
  }
  const listed = [...distinct.values()];
  const items = listed
    .slice(0, MAX_FAILURES)
    .map(
      ({ label, message, count }) =>
        `<li><b>${escapeHtml(label)}</b>: ${escapeHtml(cut(message))}${count > 1 ? ` (${count} trials)` : ""}</li>`,
    );
  if (listed.length > MAX_FAILURES) items.push(`<li>+${listed.length - MAX_FAILURES} more violations</li>`);
  const withViolations = new Set(errors.map((v) => v.scorer ?? v.rule));
  for (const score of c.scores.filter((s) => !s.passed && !withViolations.has(s.scorer)))
    items.push(`<li>${escapeHtml(describeScore(score))}</li>`);
  const error = c.error?.split("\n")[0];
  if (error) items.push(`<li class="case-error">${escapeHtml(error)}</li>`);
  return items.length > 0 ? `<ul class="static-failures">${items.join("")}</ul>` : "";
}

function cut(text: string): string {
  return text.length > MAX_MESSAGE ? `${textPrefix(text, MAX_MESSAGE)}…` : text;
}
