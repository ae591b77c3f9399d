import {
  type ComparedRun,
  formatDifference,
  formatMetricDelta,
  formatSide,
  type ResultsComparison,
  type RunMetrics,
  type SideComparison,
  type VariantSide,
} from "./compare-results.js";
import { formatPercent, plural } from "./format.js";
import { escapeHtml } from "./html-escape.js";

/**
 * A comparison (compareResults) as static HTML: the two runs, then A and B side by side per case and
 * overall, each pass rate a bar with its 95% interval drawn over it, B − A with its interval and the
 * verdict, and the deltas, formatted as the console table formats them. Both the comparison page
 * (renderComparisonHtml) and the HTML report (its `comparison` option) show it; it needs COMPARISON_CSS.
 */
export function comparisonSection(comparison: ResultsComparison): string {
  const { a, b } = comparison;
  const suites = new Set(comparison.cases.map((c) => c.suite));
  const caseRows = comparison.cases.map((c) =>
    row(suites.size > 1 && c.suite ? `${c.suite} › ${c.name}` : c.name, c, "case", c.id),
  );
  const overall = row(`overall (${plural(comparison.cases.length, "case")})`, comparison.overall, "overall");
  const unmatched = (run: ComparedRun, cases: ResultsComparison["only_in_a"]) =>
    cases.length === 0
      ? ""
      : `<p class="cmp-only">Only in ${escapeHtml(run.label)}: ${cases
          .map((c) => `<code>${escapeHtml(c.suite ? `${c.suite} › ${c.id}` : c.id)}</code>`)
          .join(", ")}</p>`;
  return [
    `<div class="cmp-runs">${runCard("A", a)}${runCard("B", b)}</div>`,
    '<table class="cmp">',
    "<thead><tr>",
    `<th>case</th><th>${escapeHtml(a.label)}</th><th>${escapeHtml(b.label)}</th>`,
    `<th>${escapeHtml(b.label)} − ${escapeHtml(a.label)}</th><th>verdict</th>`,
    "<th>Δ turns</th><th>Δ tool calls</th><th>Δ tokens</th><th>Δ time</th>",
    "</tr></thead>",
    `<tbody>${caseRows.join("")}</tbody>`,
    `<tfoot>${overall}</tfoot>`,
    "</table>",
    unmatched(a, comparison.only_in_a),
    unmatched(b, comparison.only_in_b),
    [...comparison.cases, comparison.overall].some((c) => c.deltas.turns === undefined)
      ? '<p class="sub">–: not every trial\'s run is in the files (runs_included): write results with includeRuns "all" to compare turns, tool calls and tokens.</p>'
      : "",
    `<p class="sub">Pass rates with their 95% Wilson intervals (the line over each bar); ${escapeHtml(b.label)} − ${escapeHtml(a.label)} with its 95% Newcombe interval: <b>within noise</b> when it contains 0. Deltas are ${escapeHtml(b.label)}'s mean per trial minus ${escapeHtml(a.label)}'s.</p>`,
  ].join("\n");
}

function runCard(side: "A" | "B", run: ComparedRun): string {
  const facts = [run.suite, run.git_branch, run.git_commit?.slice(0, 7), run.finished_at]
    .filter((fact): fact is string => Boolean(fact))
    .map((fact) => `<span class="chip">${escapeHtml(fact)}</span>`);
  return `<div class="card cmp-run" data-side="${side}"><b>${side}: ${escapeHtml(run.label)}</b> ${facts.join(" ")}</div>`;
}

function row(name: string, c: SideComparison, kind: "case" | "overall", id?: string): string {
  const verdict = c.difference.verdict;
  return [
    `<tr class="cmp-${kind}" data-verdict="${verdict}"${id !== undefined ? ` data-case="${escapeHtml(id)}"` : ""}>`,
    `<td class="cmp-name">${escapeHtml(name)}</td>`,
    `<td data-side="A">${rateCell(c.a)}</td>`,
    `<td data-side="B">${rateCell(c.b)}</td>`,
    `<td class="cmp-diff">${escapeHtml(formatDifference(c.difference))}</td>`,
    `<td><span class="cmp-verdict ${verdict.replace(" ", "-")}">${verdict}</span></td>`,
    ...DELTA_COLUMNS.map(
      (metric) => `<td class="num">${escapeHtml(formatMetricDelta(metric, c.deltas[metric]))}</td>`,
    ),
    "</tr>",
  ].join("");
}

const DELTA_COLUMNS = [
  "turns",
  "tool_calls",
  "tokens",
  "duration_ms",
] as const satisfies (keyof RunMetrics)[];

/** The rate as a bar, its interval as a line over it, and the numbers under it. */
function rateCell(side: VariantSide): string {
  const pct = (rate: number) => `${(rate * 100).toFixed(1)}%`;
  return [
    `<div class="cmp-bar" title="${escapeHtml(formatSide(side))}">`,
    `<span class="cmp-fill" style="width:${pct(side.rate)}"></span>`,
    `<span class="cmp-ci" style="left:${pct(side.ci_low)};width:${pct(side.ci_high - side.ci_low)}"></span>`,
    "</div>",
    `<div class="cmp-rate">${side.trials === 0 ? "–" : `${side.passed}/${side.trials} · ${formatPercent(side.rate)}`}</div>`,
  ].join("");
}

export const COMPARISON_CSS = `
.cmp-runs { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; margin: 16px 0; }
table.cmp { width: 100%; border-collapse: collapse; background: var(--panel); border: 1px solid var(--border); border-radius: var(--radius); }
table.cmp th, table.cmp td { padding: 8px 10px; border-bottom: 1px solid var(--border); text-align: left; vertical-align: middle; }
table.cmp th { color: var(--muted); font-weight: 600; font-size: 12px; }
table.cmp td.num, table.cmp td.cmp-diff { font-family: var(--mono); font-size: 12.5px; white-space: nowrap; }
table.cmp tfoot td { font-weight: 600; border-top: 2px solid var(--border-strong); }
.cmp-bar { position: relative; width: 160px; height: 12px; border-radius: 6px; background: var(--skip-bg); }
.cmp-fill { position: absolute; left: 0; top: 0; bottom: 0; border-radius: 6px; background: var(--pass); opacity: .75; }
.cmp-ci { position: absolute; top: 5px; height: 2px; background: var(--text); }
.cmp-rate { font-size: 12px; color: var(--muted); margin-top: 2px; }
.cmp-verdict { padding: 1px 8px; border-radius: 999px; font-size: 12px; white-space: nowrap; }
.cmp-verdict.better { background: var(--pass-bg); color: var(--pass); }
.cmp-verdict.worse { background: var(--fail-bg); color: var(--fail); }
.cmp-verdict.within-noise { background: var(--skip-bg); color: var(--skip); }
.cmp-only { color: var(--warn); }
section.comparison { margin: 18px 0; }
section.comparison h2 { font-size: 15px; margin: 0 0 4px; }
`;
