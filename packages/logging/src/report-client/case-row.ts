import { formatDuration } from "../format.js";
import type { CaseRow } from "../html-data.js";
import { type Child, h } from "./dom.js";
import { costText, pill, scoreColor } from "./labels.js";

const SEVERITY_SHORT = { error: "err", warning: "warn", info: "info" } as const;

/** One line of the case table; `open` toggles the case's details. */
export function caseRowElement(c: CaseRow, showSuite: boolean, open: () => void): HTMLElement {
  const dots = h("span", { class: "dots" });
  for (const status of c.trialStatus.slice(0, 24))
    dots.append(h("i", { class: `dot ${status}`, title: status }));
  const viol: Child[] = [];
  for (const sev of ["error", "warning", "info"] as const) {
    if (c.violations[sev] > 0)
      viol.push(
        h(
          "span",
          { class: `sev sev-${sev}`, title: `${c.violations[sev]} ${sev}` },
          `${c.violations[sev]} ${SEVERITY_SHORT[sev]}`,
        ),
      );
  }
  if (c.violations.expected > 0)
    viol.push(
      h(
        "span",
        { class: "sev sev-expected", title: `${c.violations.expected} expected by the case` },
        `${c.violations.expected} expected`,
      ),
    );
  const allPassed = c.scores.every((s) => s.passed);
  return h(
    "tr",
    {
      class: "row",
      "data-n": c.n,
      "data-status": c.status,
      tabindex: 0,
      onclick: open,
      onkeydown: (e: KeyboardEvent) => {
        if (e.key !== "Enter" && e.key !== " ") return;
        e.preventDefault();
        open();
      },
    },
    h("td", null, pill(c.status)),
    h(
      "td",
      null,
      h("span", { class: "case-name" }, c.name),
      c.id !== c.name ? h("span", { class: "case-id" }, c.id) : null,
      h(
        "div",
        null,
        showSuite
          ? h("span", { class: "tag", style: "background:var(--accent-bg);color:var(--accent)" }, c.suite)
          : null,
        c.tags.map((t) => h("span", { class: "tag" }, t)),
      ),
      c.why ? h("div", { class: "why", title: c.why }, c.why) : null,
    ),
    h(
      "td",
      { class: "hide-sm" },
      dots,
      h("span", { class: "trial-count" }, c.trials > 1 ? `${c.trialsPassed}/${c.trials}` : ""),
    ),
    h(
      "td",
      null,
      c.score === null
        ? h("span", { class: "none" }, "–")
        : h(
            "span",
            { class: "score" },
            h(
              "span",
              { class: "meter" },
              h("i", {
                style: `width:${(c.score * 100).toFixed(0)}%;background:${scoreColor(c.score, allPassed)}`,
              }),
            ),
            c.score.toFixed(2),
          ),
    ),
    h("td", { class: "hide-sm" }, viol.length ? viol : h("span", { class: "none" }, "none")),
    h("td", { class: "num" }, formatDuration(c.durationMs)),
    h(
      "td",
      { class: "num hide-sm" },
      c.costUsd === null && c.origin
        ? h("span", { class: "none", title: "nothing was spent on replayed runs" }, c.origin)
        : costText(c.costUsd),
    ),
  );
}
