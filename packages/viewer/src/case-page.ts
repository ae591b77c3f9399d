import { wilsonInterval } from "@evals/logging";
import type { Store } from "@evals/store";
import { href, html, page, percent, usd, violationMessage, when } from "./html.js";
import { caseRuns, trialsOfCaseRuns } from "./queries.js";
import { rateChart } from "./svg.js";

/** How many of a case's last runs its page shows. */
export const CASE_RUNS = 50;

/**
 * `/case?suite=&id=`: a case's pass rate over its last runs with the 95% Wilson band, and every trial
 * of those runs (linked to its transcript) with its violations.
 */
export async function casePage(store: Store, suite: string, caseId: string): Promise<string | undefined> {
  const runs = await caseRuns(store, suite, caseId, CASE_RUNS);
  if (runs.length === 0) return undefined;
  const chart = rateChart(
    [...runs].reverse().map((run) => {
      const [low, high] = wilsonInterval(run.passed_trials, run.trial_count);
      const rate = run.trial_count === 0 ? null : run.passed_trials / run.trial_count;
      return {
        rate,
        low,
        high,
        label: `${when(run.finished_at)} ${run.git_commit?.slice(0, 10) ?? ""}: ${run.passed_trials}/${run.trial_count} trials passed (95% ${percent(low)}–${percent(high)})`,
        link: href("/run", { id: run.run_id }),
      };
    }),
    "Pass rate of the case's trials in each run, oldest left, with the 95% Wilson band",
  );
  const passed = runs.reduce((sum, run) => sum + run.passed_trials, 0);
  const trials = runs.reduce((sum, run) => sum + run.trial_count, 0);
  const [low, high] = wilsonInterval(passed, trials);
  const all = await trialsOfCaseRuns(store, runs);
  const sections = [];
  for (const run of runs) {
    const trialRows = all.trials.filter((t) => t.run_id === run.run_id);
    const violations = all.violations.filter((v) => v.run_id === run.run_id);
    sections.push(
      html`<tr><td><a href="${href("/run", { id: run.run_id })}">${when(run.finished_at)}</a><br><small>${run.git_branch ?? ""} <code>${run.git_commit?.slice(0, 10) ?? ""}</code></small></td><td class="${run.status}">${run.status}</td><td>${trialRows.map(
        (t) =>
          html`<div><a href="${href("/trial", { run: t.run_id, pos: t.position, trial: t.trial })}">trial ${t.trial}</a> <span class="${t.status}">${t.status}</span>${t.outcome ? ` (${t.outcome})` : ""} ${usd(t.cost_usd)}${t.recording ? html` <small class="recording">${t.recording === "live" ? "live" : html`replayed <code>${t.recording}</code>`}</small>` : ""}${violations
            .filter((v) => v.trial === t.trial)
            .map(
              (v) =>
                html`<div class="failed">${v.severity} <code>${v.rule}</code>: ${violationMessage(v.run_id, v)}</div>`,
            )}</div>`,
      )}${violations
        .filter((v) => v.trial === null)
        .map(
          (v) =>
            html`<div class="failed">${v.severity} <code>${v.rule}</code>: ${violationMessage(v.run_id, v)}</div>`,
        )}</td></tr>`,
    );
  }
  return page(
    `Case ${runs[0]!.name}`,
    html`<p>${suite ? `${suite} › ` : ""}<code>${caseId}</code>: ${passed}/${trials} trials passed over its last ${runs.length} run(s): ${percent(trials === 0 ? null : passed / trials)} (95% ${percent(low)}–${percent(high)}).</p>${chart}<table id="trials"><thead><tr><th>Run</th><th>Verdict</th><th>Trials</th></tr></thead><tbody>${sections}</tbody></table>`,
  );
}
