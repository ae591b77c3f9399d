import { formatCost, formatDuration, formatPercent, plural } from "../format.js";
import type { ReportIndex } from "../html-data.js";
import { type Child, h } from "./dom.js";

/** How many trials the run had, and how many of them were replayed (not live). */
function trialOrigins(index: ReportIndex): { all: number; replayed: number } {
  const origins = index.meta.origins ?? {};
  const all = Object.values(origins).reduce((total: number, n) => total + (n ?? 0), 0);
  return { all, replayed: all - (origins.live ?? 0) };
}

/** The page's header: the suite's name and the run's facts (when, commit, claude, model, replayed). */
export function header(index: ReportIndex): HTMLElement {
  const { meta, summary } = index;
  const trials = trialOrigins(index);
  const when = new Date(meta.finished_at);
  const chips: Child[] = [
    h(
      "span",
      { class: "chip" },
      "finished ",
      h(
        "b",
        null,
        Number.isNaN(when.getTime())
          ? meta.finished_at
          : when.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }),
      ),
    ),
    meta.git_commit
      ? h(
          "span",
          { class: "chip", title: meta.git_commit },
          "commit ",
          h("b", null, meta.git_commit.slice(0, 10)),
          meta.git_branch ? ` ${meta.git_branch}` : "",
          meta.git_dirty ? " (dirty)" : "",
        )
      : null,
    meta.claude_version ? h("span", { class: "chip" }, "claude ", h("b", null, meta.claude_version)) : null,
    meta.model ? h("span", { class: "chip" }, "model ", h("b", null, meta.model)) : null,
    trials.replayed > 0
      ? h(
          "span",
          {
            class: "chip replayed",
            title: "The model's answers came from recordings: no model was called and nothing was spent.",
          },
          h("b", null, "replayed"),
          ` ${trials.replayed} of ${plural(trials.all, "trial")}`,
          meta.recorded_model ? ` · recorded model ${meta.recorded_model}` : "",
        )
      : null,
    h("span", { class: "chip" }, "node ", h("b", null, meta.node_version)),
    meta.ci ? h("span", { class: "chip" }, h("b", null, "CI")) : null,
  ];
  const suiteNames = meta.suites.length > 1 ? `${meta.suites.length} suites` : (meta.suites[0] ?? meta.suite);
  return h(
    "header",
    { class: "top" },
    h(
      "div",
      { class: "brand" },
      h("div", { class: "logo" }, "ev"),
      h(
        "div",
        null,
        h("h1", null, meta.suite),
        h("div", { class: "sub" }, `Eval report · ${suiteNames} · ${plural(summary.total, "case")}`),
      ),
    ),
    h("div", { class: "meta" }, chips),
  );
}

/** The summary cards: pass rate (a ring and a stacked bar), failed, violations, duration, cost. */
export function cards(index: ReportIndex): HTMLElement {
  const sum = index.summary;
  const trials = trialOrigins(index);
  const expected = sum.violations.expected ?? 0;
  const ran = sum.total - sum.skipped;
  const stack = h("div", { class: "stack", title: "passed / failed / errored / skipped" });
  for (const [status, count] of [
    ["passed", sum.passed],
    ["failed", sum.failed],
    ["error", sum.errored],
    ["skipped", sum.skipped],
  ] as const) {
    if (count > 0)
      stack.append(
        h("i", { class: `s-${status}`, style: `width:${(count / Math.max(1, sum.total)) * 100}%` }),
      );
  }
  const ring = h(
    "div",
    { class: "ring", style: `--p:${(sum.pass_rate * 100).toFixed(1)}` },
    h("span", null, formatPercent(sum.pass_rate)),
  );
  const card = (label: string, value: Child, hint: string, valueStyle = "") =>
    h(
      "div",
      { class: "card" },
      h("div", { class: "label" }, label),
      h("div", { class: "value", style: valueStyle }, value),
      h("div", { class: "hint" }, hint),
    );
  const failed = sum.failed + sum.errored;
  const { error, warning, info } = sum.violations;
  return h(
    "section",
    { class: "cards" },
    h(
      "div",
      { class: "card" },
      h(
        "div",
        { class: "rate" },
        ring,
        h(
          "div",
          null,
          h("div", { class: "label" }, "Pass rate"),
          h("div", { class: "value" }, `${sum.passed}/${ran}`),
          h("div", { class: "hint" }, `cases passed${sum.skipped ? ` · ${sum.skipped} skipped` : ""}`),
        ),
      ),
      stack,
    ),
    card(
      "Failed",
      String(failed),
      `${sum.failed} failed · ${sum.errored} errored`,
      failed ? "color:var(--fail)" : "",
    ),
    card(
      "Violations",
      String(error + warning + info),
      `${error} errors · ${warning} warnings · ${info} info${expected ? ` · ${expected} expected` : ""}`,
    ),
    card(
      "Duration",
      formatDuration(sum.duration_ms),
      `${plural(sum.trials, "trial")} over ${plural(sum.total, "case")}`,
    ),
    card(
      "Cost",
      formatCost(sum.cost_usd) || "–",
      sum.cost_usd !== undefined
        ? `reported by Claude Code${trials.replayed ? " (live runs only)" : ""}`
        : trials.replayed
          ? "replayed: nothing was spent"
          : "not reported",
    ),
  );
}
