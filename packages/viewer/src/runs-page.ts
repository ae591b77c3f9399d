import type { Store } from "@evals/store";
import { href, html, page, pager, percent, type SafeHtml, usd, when } from "./html.js";
import { countRuns, listRuns, type RunRow, runPassRate } from "./queries.js";
import { rateChart } from "./svg.js";

export const RUNS_PER_PAGE = 50;

/** `/`: the runs over time, newest first, a page at a time, and a chart of that page's runs. */
export async function runsPage(store: Store, pageNumber: number): Promise<string> {
  const total = await countRuns(store);
  const runs = await listRuns(store, (pageNumber - 1) * RUNS_PER_PAGE, RUNS_PER_PAGE);
  if (total === 0)
    return page(
      "Runs",
      html`<p class="note">No runs recorded yet: <code>evals run</code> records every run in this database.</p>`,
    );
  const maxCost = Math.max(0, ...runs.map((r) => r.cost_usd ?? 0));
  const chart = rateChart(
    [...runs].reverse().map((run) => ({
      rate: runPassRate(run),
      ...(maxCost > 0 && run.cost_usd !== null ? { bar: run.cost_usd / maxCost } : {}),
      label: `${when(run.finished_at)} ${run.git_branch ?? ""} ${run.git_commit?.slice(0, 10) ?? ""}: ${percent(runPassRate(run))} passed, ${usd(run.cost_usd)}`,
      link: href("/run", { id: run.id }),
    })),
    "Pass rate of each run on this page, oldest left (bars: cost)",
  );
  return page(
    "Runs",
    html`${chart}${pager("/", {}, pageNumber, RUNS_PER_PAGE, total)}${runsTable(runs)}${pager("/", {}, pageNumber, RUNS_PER_PAGE, total)}`,
  );
}

function runsTable(runs: RunRow[]): SafeHtml {
  return html`<table id="runs"><thead><tr><th>Finished</th><th>Run</th><th>Suite</th><th>Branch</th><th>Commit</th><th>Cases</th><th>Passed</th><th>Failed</th><th>Errored</th><th>Pass rate</th><th>Cost</th></tr></thead><tbody>${runs.map(
    (run) =>
      html`<tr><td>${when(run.finished_at)}</td><td><a href="${href("/run", { id: run.id })}">${run.id.slice(0, 12)}</a></td><td>${run.suite}</td><td>${run.git_branch ?? ""}</td><td><code>${run.git_commit?.slice(0, 10) ?? ""}${run.git_dirty ? "+" : ""}</code></td><td class="num">${run.case_count}</td><td class="num passed">${run.passed}</td><td class="num failed">${run.failed}</td><td class="num errored">${run.errored}</td><td class="num">${percent(runPassRate(run))}</td><td class="num">${usd(run.cost_usd)}</td></tr>`,
  )}</tbody></table>`;
}
