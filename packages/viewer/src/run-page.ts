import { existsSync } from "node:fs";
import type { Store } from "@evals/store";
import { cutText, href, html, page, pager, percent, usd, violationMessage, when } from "./html.js";
import { findRun, laterRunOfReport, runCases, runPassRate } from "./queries.js";

export const CASES_PER_PAGE = 100;

/** `/run?id=`: a run's facts and its cases (a page at a time) with their verdicts and violations. */
export async function runPage(
  store: Store,
  id: string,
  pageNumber: number,
  onlyNotPassed: boolean,
): Promise<string | undefined> {
  const run = await findRun(store, id);
  if (!run) return undefined;
  const { total, cases, violations } = await runCases(
    store,
    id,
    onlyNotPassed,
    (pageNumber - 1) * CASES_PER_PAGE,
    CASES_PER_PAGE,
  );
  const later = await laterRunOfReport(store, run);
  const report = !run.report_file
    ? html`no HTML report`
    : !existsSync(run.report_file)
      ? html`its HTML report ${run.report_file} is gone (moved or deleted)`
      : later
        ? html`its HTML report ${run.report_file} now holds a later run's: <a href="${href("/run", { id: later })}">run ${later.slice(0, 12)}</a>`
        : html`<a href="${href("/report", { id })}">its HTML report</a>`;
  const params: Record<string, string> = { id, ...(onlyNotPassed ? { only: "not-passed" } : {}) };
  const facts = html`<table><tbody>
<tr><th>Run</th><td><code>${run.id}</code> (${run.source})</td></tr>
<tr><th>Finished</th><td>${when(run.finished_at)}</td></tr>
<tr><th>Git</th><td>${run.git_branch ?? "no branch"} <code>${run.git_commit ?? ""}</code>${run.git_dirty ? " (uncommitted changes)" : ""}</td></tr>
<tr><th>Agent</th><td>${run.agent_cli ?? ""} ${run.agent_version ?? ""} ${run.model ?? run.recorded_model ?? ""}</td></tr>
<tr><th>Verdicts</th><td>${run.passed} passed, ${run.failed} failed, ${run.errored} errored, ${run.skipped} skipped of ${run.case_count} (${percent(runPassRate(run))})</td></tr>
<tr><th>Cost</th><td>${usd(run.cost_usd) || "unknown"}, ${(run.duration_ms / 1000).toFixed(1)} s</td></tr>
<tr><th>Files</th><td>${report}${run.results_dir ? html`; results in <code>${run.results_dir}</code>` : ""}</td></tr>
</tbody></table>`;
  const filter = onlyNotPassed
    ? html`<p>Showing the failed and errored cases. <a href="${href("/run", { id })}">Show every case</a></p>`
    : html`<p><a href="${href("/run", { id, only: "not-passed" })}">Show only the failed and errored cases</a></p>`;
  const rows = cases.map((c) => {
    const own = violations.filter((v) => v.position === c.position);
    return html`<tr><td class="num">${c.position + 1}</td><td><a href="${href("/case", { suite: c.suite, id: c.case_id })}">${c.name}</a><br><small>${c.suite ? `${c.suite} › ` : ""}${c.case_id}</small></td><td class="${c.status}">${c.status}</td><td class="num">${c.passed_trials}/${c.trial_count}</td><td class="num">${usd(c.cost_usd)}</td><td>${
      c.error
        ? html`<pre>${cutText(c.error, c.error_more ?? 0, href("/message", { run: id, pos: c.position }))}</pre>`
        : ""
    }${own.map(
      (v) =>
        html`<div class="${v.expected ? "" : "failed"}">${v.severity} <code>${v.rule}</code>${v.trial === null ? "" : html` (<a href="${href("/trial", { run: id, pos: c.position, trial: v.trial })}">trial ${v.trial}</a>)`}: ${violationMessage(id, v)}${v.expected ? " (expected)" : ""}</div>`,
    )}</td></tr>`;
  });
  return page(
    `Run ${run.id.slice(0, 12)}`,
    html`${facts}${filter}${pager("/run", params, pageNumber, CASES_PER_PAGE, total)}<table id="cases"><thead><tr><th>#</th><th>Case</th><th>Verdict</th><th>Trials passed</th><th>Cost</th><th>Violations</th></tr></thead><tbody>${rows}</tbody></table>${pager("/run", params, pageNumber, CASES_PER_PAGE, total)}`,
  );
}
