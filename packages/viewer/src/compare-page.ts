import { compareStoredRuns, type RunDeltas, type Store } from "@evals/store";
import { href, html, page, percent, type SafeHtml, when } from "./html.js";
import { listRuns, type RunRow } from "./queries.js";

/** How many recent runs the form offers on each side. */
const RUNS_OFFERED = 200;

/**
 * `/compare?a=&b=`: a form to pick two runs, and (given both) their comparison: the cases whose
 * verdict flipped with the first step where B's calls left A's, the changes beyond noise, and the
 * cost and token deltas.
 */
export async function comparePage(
  store: Store,
  a: string | undefined,
  b: string | undefined,
): Promise<string> {
  const runs = await listRuns(store, 0, RUNS_OFFERED);
  const form = html`<form method="get" action="/compare">
<label>A (baseline) ${select("a", runs, a ?? runs[1]?.id)}</label><br>
<label>B (candidate) ${select("b", runs, b ?? runs[0]?.id)}</label><br>
<button type="submit">Compare</button></form>`;
  if (!a || !b) return page("Compare runs", form);
  let comparison: Awaited<ReturnType<typeof compareStoredRuns>>;
  try {
    comparison = await compareStoredRuns(store, a, b);
  } catch (error) {
    return page("Compare runs", html`${form}<p class="error">${(error as Error).message}</p>`);
  }
  const { overall } = comparison;
  const flipped = comparison.cases.filter((c) => c.flipped);
  const changed = comparison.cases.filter((c) => c.change !== "within noise" && !c.flipped);
  const side = (run: typeof comparison.a) =>
    html`<a href="${href("/run", { id: run.id })}">${run.id.slice(0, 12)}</a> ${when(run.finished_at)} ${run.git_branch ?? ""} <code>${run.git_commit?.slice(0, 10) ?? ""}</code>`;
  const call = (step: { tool: string; input: unknown } | null) =>
    step ? `${step.tool} ${JSON.stringify(step.input)}` : "nothing (its trajectory had ended)";
  const caseRow = (c: (typeof comparison.cases)[number]) =>
    html`<tr><td><a href="${href("/case", { suite: c.suite ?? "", id: c.case_id })}">${c.name}</a><br><small>${c.case_id}</small></td><td>${percent(c.a.rate)} (${c.a.passed}/${c.a.trials})</td><td>${percent(c.b.rate)} (${c.b.passed}/${c.b.trials})</td><td class="${c.change === "regressed" ? "failed" : c.change === "improved" ? "passed" : ""}">${c.change}</td><td>${
      c.divergence
        ? html`step ${c.divergence.step + 1}: B called <code>${call(c.divergence.b)}</code>, A <code>${call(c.divergence.a)}</code> (<a href="${href("/trial", { run: c.divergence.a_trial.run_id, pos: c.divergence.a_trial.position, trial: c.divergence.a_trial.trial })}">A's trial</a>, <a href="${href("/trial", { run: c.divergence.b_trial.run_id, pos: c.divergence.b_trial.position, trial: c.divergence.b_trial.trial })}">B's trial</a>)`
        : c.flipped
          ? "same calls (or none recorded)"
          : ""
    }</td><td>${deltas(c.deltas)}</td></tr>`;
  const head = html`<thead><tr><th>Case</th><th>A</th><th>B</th><th>Change</th><th>First divergent step</th><th>Deltas per trial (B − A)</th></tr></thead>`;
  return page(
    "Compare runs",
    html`${form}<p>A: ${side(comparison.a)}<br>B: ${side(comparison.b)}</p>${
      comparison.incomparable.length > 0
        ? html`<p class="note">Not like for like: the runs differ in ${comparison.incomparable.join("; ")}.</p>`
        : ""
    }<p id="overall">Overall: ${percent(overall.a.rate)} → ${percent(overall.b.rate)} (${overall.change}); per trial ${deltas(overall.deltas)}. ${comparison.only_in_a.length} case(s) only in A, ${comparison.only_in_b.length} only in B.</p>
<h2>Status flips (${flipped.length})</h2>${
      flipped.length === 0
        ? html`<p>No case's verdict flipped.</p>`
        : html`<table id="flips">${head}<tbody>${flipped.map(caseRow)}</tbody></table>`
    }<h2>Other changes beyond noise (${changed.length})</h2>${
      changed.length === 0
        ? html`<p>None.</p>`
        : html`<table id="changes">${head}<tbody>${changed.map(caseRow)}</tbody></table>`
    }`,
  );
}

function select(name: string, runs: RunRow[], selected: string | undefined): SafeHtml {
  return html`<select name="${name}">${runs.map(
    (run) =>
      html`<option value="${run.id}"${run.id === selected ? html` selected` : ""}>${when(run.finished_at)} ${run.git_branch ?? ""} ${run.git_commit?.slice(0, 10) ?? ""} ${run.id.slice(0, 12)}</option>`,
  )}</select>`;
}

function deltas(d: RunDeltas): string {
  const parts: string[] = [];
  const sign = (n: number) => (n >= 0 ? "+" : "−");
  if (d.cost_usd !== undefined) parts.push(`cost ${sign(d.cost_usd)}$${Math.abs(d.cost_usd).toFixed(4)}`);
  if (d.tokens !== undefined) parts.push(`tokens ${sign(d.tokens)}${Math.abs(Math.round(d.tokens))}`);
  if (d.turns !== undefined) parts.push(`turns ${sign(d.turns)}${Math.abs(d.turns).toFixed(1)}`);
  if (d.tool_calls !== undefined)
    parts.push(`tool calls ${sign(d.tool_calls)}${Math.abs(d.tool_calls).toFixed(1)}`);
  return parts.join(", ") || "no deltas known";
}
