import { formatDuration, formatPercent } from "../format.js";
import type { CaseDetail, CaseRow, ViolationView } from "../html-data.js";
import { h } from "./dom.js";
import { scoreColor, severityClass, severityLabel } from "./labels.js";
import { renderTrial } from "./timeline.js";

/** An opened case's body; `showTrial` switches its timeline to a trial (by trial number). */
export type DetailBody = HTMLElement & { showTrial?: (trial: number) => void };

/**
 * An opened case: its facts, the panels of scores, trial statistics and violations, and the trials'
 * timelines in tabs (the first trial that did not pass is shown first). `jumpTo` shows where a
 * violation happened.
 */
export function renderDetail(c: CaseRow, d: CaseDetail, jumpTo: (v: ViolationView) => void): DetailBody {
  const body: DetailBody = h("div", { class: "detail-body" });
  body.append(
    h(
      "div",
      { class: "detail-head" },
      d.description ? h("div", { class: "desc" }, d.description) : null,
      h("span", null, "id ", h("code", null, c.id)),
      h("span", null, "suite ", h("b", null, c.suite)),
      d.file ? h("span", null, "file ", h("code", null, d.file)) : null,
    ),
  );
  if (d.error) body.append(h("div", { class: "error-box" }, d.error));
  body.append(h("div", { class: "panels" }, scoresPanel(c), statsPanel(d), violationsPanel(c, d, jumpTo)));

  const tabs = h("div", { class: "tabs" }, h("span", { class: "label" }, "Timeline"));
  const holder = h("div");
  const tabButtons: HTMLElement[] = [];
  const show = (i: number) => {
    tabButtons.forEach((b, n) => {
      b.classList.toggle("on", n === i);
    });
    holder.replaceChildren(renderTrial(d.trials[i]!, d.violations));
    holder.setAttribute("data-trial", String(d.trials[i]!.trial));
  };
  d.trials.forEach((t, i) => {
    const b = h(
      "button",
      { class: "tab", onclick: () => show(i) },
      h("i", { class: `dot ${t.status}` }),
      `Trial ${t.trial + 1}`,
      h("span", { class: "none" }, formatDuration(t.durationMs)),
    );
    tabButtons.push(b);
    tabs.append(b);
  });
  body.append(tabs, holder);
  body.showTrial = (trial: number) => {
    const i = d.trials.findIndex((t) => t.trial === trial);
    if (i >= 0 && holder.getAttribute("data-trial") !== String(trial)) show(i);
  };
  if (d.trials.length > 0)
    show(
      Math.max(
        0,
        d.trials.findIndex((t) => t.status !== "passed"),
      ),
    );
  else holder.append(h("div", { class: "none" }, "No trials ran."));
  return body;
}

function scoresPanel(c: CaseRow): HTMLElement {
  const panel = h("div", { class: "panel" }, h("h4", null, "Scores"));
  if (c.scores.length === 0) panel.append(h("div", { class: "none" }, "No scorers."));
  for (const s of c.scores) {
    panel.append(
      h(
        "div",
        { class: "score-row", title: s.threshold !== undefined ? `threshold ${s.threshold}` : "" },
        h("span", { class: "mono" }, s.scorer),
        h(
          "span",
          { class: "track" },
          h("i", {
            style: `width:${(s.score * 100).toFixed(0)}%;background:${scoreColor(s.score, s.passed)}`,
          }),
          s.threshold !== undefined
            ? h("b", { style: `left:calc(${(s.threshold * 100).toFixed(0)}% - 1px)` })
            : null,
        ),
        h("span", { style: "text-align:right;font-variant-numeric:tabular-nums" }, s.score.toFixed(2)),
        h("span", { class: s.passed ? "ok" : "bad" }, s.passed ? "✓" : "✗"),
      ),
    );
  }
  return panel;
}

function statsPanel(d: CaseDetail): HTMLElement {
  const panel = h("div", { class: "panel" }, h("h4", null, "Trials"));
  const st = d.stats;
  if (!st) {
    panel.append(h("div", { class: "none" }, "No statistics."));
    return panel;
  }
  const dl = h("dl", { class: "kv" });
  const add = (k: string, v: string) => dl.append(h("dt", null, k), h("dd", null, v));
  add("passed", `${st.passed} of ${st.trials}`);
  add(
    "pass rate",
    `${formatPercent(st.pass_rate)}  (95% CI ${formatPercent(st.ci_low)}–${formatPercent(st.ci_high)})`,
  );
  add("mean score", `${st.mean_score.toFixed(2)} ± ${st.score_stddev.toFixed(2)}`);
  add(`pass@${st.k}`, formatPercent(st.pass_at_k));
  add(`pass^${st.k}`, formatPercent(st.pass_hat_k));
  add("flip rate", formatPercent(st.flip_rate));
  panel.append(dl);
  return panel;
}

function violationsPanel(c: CaseRow, d: CaseDetail, jumpTo: (v: ViolationView) => void): HTMLElement {
  const list = h("div", { class: "vlist" });
  if (d.violations.length === 0) list.append(h("div", { class: "none" }, "No violations."));
  d.violations.forEach((v, i) => {
    list.append(
      h(
        "div",
        { class: `vitem ${severityClass(v)}`, "data-violation": i },
        h("span", { class: `sev sev-${severityClass(v)}` }, severityLabel(v)),
        h("span", { class: "rule" }, `${v.rule}/${v.type}`),
        c.trials > 1 ? h("span", { class: "none" }, ` · trial ${v.trial + 1}`) : null,
        h("div", { class: "msg" }, v.message),
        v.target
          ? h("button", { class: "linkish", onclick: () => jumpTo(v) }, "Show where it happened ↓")
          : v.agent
            ? h("span", { class: "none" }, `agent ${v.agent}`)
            : null,
      ),
    );
  });
  return h("div", { class: "panel" }, h("h4", null, `Violations (${d.violations.length})`), list);
}
