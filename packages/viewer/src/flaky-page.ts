import { type FlakyCase, findFlakyCases, type Store } from "@evals/store";
import { href, html, page, type SafeHtml, when } from "./html.js";

/** Most flaky cases one page lists. */
export const FLAKY_SHOWN = 200;

/** `/flaky`: the flaky cases (findFlakyCases over each case's last 20 runs), each run and trial linked. */
export async function flakyPage(store: Store): Promise<string> {
  const flaky = await findFlakyCases(store);
  if (flaky.length === 0)
    return page(
      "Flaky cases",
      html`<p>No flaky cases: every case's verdict was the same across its recorded runs of the same case file, agent and model.</p>`,
    );
  const shown = flaky.slice(0, FLAKY_SHOWN);
  const sections: SafeHtml[] = [];
  for (const c of shown) sections.push(await flakySection(store, c));
  return page(
    "Flaky cases",
    html`<p>${flaky.length} case(s) where some trial passed and another failed over runs of the same case file, agent and model${
      flaky.length > shown.length ? ` (the first ${shown.length} shown)` : ""
    }.</p>${sections}`,
  );
}

async function flakySection(store: Store, c: FlakyCase): Promise<SafeHtml> {
  const suite = c.suite ?? "";
  const rows = await store.sql.query<{ run_id: string; position: number }>(
    "SELECT run_id, position FROM cases WHERE suite = $1 AND case_id = $2 AND run_id = ANY($3::text[])",
    [suite, c.case_id, c.runs.map((run) => run.run_id)],
  );
  const positionIn = new Map(rows.map((row) => [row.run_id, row.position]));
  const trialLink = (runId: string, trial: number, status: "passed" | "failed") => {
    const pos = positionIn.get(runId);
    return pos === undefined
      ? html`<span class="${status}">trial ${trial} ${status}</span> `
      : html`<a class="trial ${status}" href="${href("/trial", { run: runId, pos, trial })}">trial ${trial} ${status}</a> `;
  };
  const d = c.divergence;
  const call = (step: { tool: string; input: unknown } | null) =>
    step ? `${step.tool} ${JSON.stringify(step.input)}` : "nothing (its trajectory had ended)";
  return html`<section class="flaky"><h2><a href="${href("/case", { suite, id: c.case_id })}">${suite ? `${suite} › ` : ""}${c.case_id}</a></h2>
<p>${c.passed} trial(s) passed and ${c.failed} failed over ${c.runs.length} run(s) of case file <code>${c.code_hash}</code>, ${c.origin}, ${c.agent_cli ?? ""} ${c.agent_version ?? ""} ${c.model ?? ""}</p>
<table><thead><tr><th>Run</th><th>Commit</th><th>Trials</th></tr></thead><tbody>${c.runs.map(
    (run) =>
      html`<tr><td><a href="${href("/run", { id: run.run_id })}">${when(run.finished_at)}</a></td><td><code>${run.git_commit?.slice(0, 10) ?? ""}</code></td><td>${run.passed_trials.map((t) => trialLink(run.run_id, t, "passed"))}${run.failed_trials.map((t) => trialLink(run.run_id, t, "failed"))}</td></tr>`,
  )}</tbody></table>
<p>${
    d
      ? html`Diverges at step ${d.step + 1}: the failing trial called <code>${call(d.b)}</code>, the passing one <code>${call(d.a)}</code>.`
      : "Same tool calls in the passing and failing trials (or none recorded): the verdict changed without the calls changing."
  }</p></section>`;
}
