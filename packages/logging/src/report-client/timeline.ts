import { formatDuration, plural } from "../format.js";
import type { AgentView, ItemView, TrialView, ViolationView } from "../html-data.js";
import { h } from "./dom.js";
import { costText, pill, severityClass, severityLabel } from "./labels.js";

/** A trial: its facts, then its timeline (each agent's calls, subagents nested under their call). */
export function renderTrial(t: TrialView, violations: ViolationView[]): HTMLElement {
  const box = h("div", { class: "timeline" });
  box.append(
    h(
      "div",
      { class: "tl-head" },
      pill(t.status),
      h("span", null, `${plural(t.sessions, "session")} · depth ${t.maxDepth}`),
      h("span", null, `duration ${formatDuration(t.durationMs)}`),
      t.costUsd !== null ? h("span", null, `cost ${costText(t.costUsd)}`) : null,
      t.costUsd === null && t.recordedCostUsd !== null
        ? h(
            "span",
            { title: "what the recorded run cost; nothing was spent on this replay" },
            `recording's cost ${costText(t.recordedCostUsd)} (not spent)`,
          )
        : null,
      t.model ? h("span", null, `${t.replayed ? "recorded model" : "model"} ${t.model}`) : null,
      t.origin ? h("span", { class: `origin o-${t.origin}` }, t.origin) : null,
      t.runId ? h("span", null, "run ", h("code", null, t.runId)) : null,
      t.scores.length
        ? h(
            "span",
            null,
            t.scores.map((s) => `${s.scorer} ${s.score.toFixed(2)}${s.passed ? "" : " ✗"}`).join(" · "),
          )
        : null,
    ),
  );
  if (t.error) box.append(h("div", { class: "error-box" }, t.error));
  if (!t.timeline) {
    box.append(h("div", { class: "empty" }, "This trial's run was not kept in the report."));
    return box;
  }
  box.append(renderAgent(t.timeline, t, violations));
  return box;
}

function violationBadges(ids: number[] | undefined, violations: ViolationView[]): HTMLElement | null {
  if (!ids || ids.length === 0) return null;
  return h(
    "div",
    { class: "vbadges" },
    ids.map((i) => {
      const v = violations[i]!;
      return h(
        "div",
        { class: "vbadge" },
        h("span", { class: `sev sev-${severityClass(v)}` }, severityLabel(v)),
        h("span", { class: "rule" }, `${v.rule}/${v.type}`),
        h("span", null, v.message),
      );
    }),
  );
}

/** The highlight of a violated item: red for an error, yellow for warnings only, dashed when expected. */
function violatedClass(ids: number[] | undefined, violations: ViolationView[]): string {
  if (!ids || ids.length === 0) return "";
  const unexpected = ids.filter((i) => !violations[i]!.expected);
  if (unexpected.length === 0) return " violated only-expected";
  return unexpected.some((i) => violations[i]!.severity === "error") ? " violated" : " violated only-warning";
}

function renderAgent(a: AgentView, t: TrialView, violations: ViolationView[]): HTMLElement {
  const items = h("div", { class: "items" });
  for (const item of a.items) items.append(renderItem(item, t, violations));
  return h(
    "div",
    { class: `agent d${Math.min(a.depth, 4)}${violatedClass(a.v, violations)}`, "data-key": a.key },
    h(
      "div",
      { class: "agent-head" },
      h("span", { class: "who" }, a.depth === 0 ? "main agent" : a.type),
      a.depth > 0 ? h("span", { class: "aid" }, a.id) : null,
      a.depth > 0 ? h("span", null, `depth ${a.depth}`) : null,
      h("span", null, plural(a.toolCalls, "tool call")),
      a.toolErrors ? h("span", { class: "bad" }, plural(a.toolErrors, "error")) : null,
      h("span", null, formatDuration(a.durationMs)),
      a.costUsd !== null ? h("span", null, costText(a.costUsd)) : null,
    ),
    a.depth > 0 && a.prompt ? h("div", { class: "agent-prompt", title: a.prompt }, `“${a.prompt}”`) : null,
    violationBadges(a.v, violations),
    items,
  );
}

function renderItem(item: ItemView, t: TrialView, violations: ViolationView[]): HTMLElement {
  const cls = violatedClass(item.v, violations);
  if (item.k === "call") return renderCall(item, t, violations);
  if (item.k === "final") {
    // An error result's subtype can be "success" (an API error): say why it ended instead.
    const facts = [
      item.isError ? (item.why ?? "") : item.subtype,
      item.turns !== null ? plural(item.turns, "turn") : "",
      formatDuration(item.durationMs),
      item.costUsd !== null ? costText(item.costUsd) : "",
    ].filter(Boolean);
    return h(
      "div",
      { class: `item${cls}`, "data-key": item.key },
      h(
        "div",
        { class: `final${item.isError ? " err" : ""}` },
        h("b", null, item.isError ? "Run ended with an error" : "Run finished"),
        facts.length > 0 ? ` · ${facts.join(" · ")}` : "",
        item.isError && item.text ? h("div", { class: "final-text" }, item.text) : null,
      ),
      violationBadges(item.v, violations),
    );
  }
  if (item.k === "denied") {
    return h(
      "div",
      { class: `item${cls}`, "data-key": item.key },
      h(
        "div",
        { class: "msg-item" },
        h("span", { class: "ic" }, "⊘"),
        h("span", { class: "tx" }, `${item.tool} denied: ${item.message}`),
      ),
      violationBadges(item.v, violations),
    );
  }
  const tx = h("span", { class: "tx", title: "click to expand" }, item.text);
  tx.addEventListener("click", () => tx.classList.toggle("full"));
  return h(
    "div",
    { class: `item${cls}`, "data-key": item.key },
    h("div", { class: `msg-item ${item.k}` }, h("span", { class: "ic" }, item.k === "user" ? "›" : "…"), tx),
    violationBadges(item.v, violations),
  );
}

/** A tool call: one line with its place on the trial's waterfall; a click shows its input and output. */
function renderCall(
  item: Extract<ItemView, { k: "call" }>,
  t: TrialView,
  violations: ViolationView[],
): HTMLElement {
  const span = t.spanMs && t.spanMs > 0 ? t.spanMs : null;
  const wf = h("span", { class: "wf" });
  if (span !== null && item.at !== null) {
    const left = (item.at / span) * 100;
    const width = item.durationMs !== null ? Math.max(0.6, (item.durationMs / span) * 100) : 0.6;
    wf.append(
      h("i", {
        style: `left:${Math.min(99.4, left).toFixed(2)}%;width:${Math.min(100 - left, width).toFixed(2)}%`,
      }),
    );
  }
  const row = h(
    "div",
    { class: "call", title: `${item.name} · ${item.status}${item.id ? ` · ${item.id}` : ""}` },
    h("span", { class: `st ${item.status}` }),
    h("span", { class: "at" }, item.at !== null ? `+${formatDuration(item.at)}` : ""),
    h(
      "span",
      { class: "tool" },
      item.name,
      item.status === "denied"
        ? h("span", { class: "label-denied" }, "denied")
        : item.status === "error"
          ? h("span", { class: "label-error" }, "error")
          : null,
    ),
    h("span", { class: "sum" }, item.summary),
    h("span", { class: "dur" }, formatDuration(item.durationMs)),
    h("span", { class: "hide-sm" }, wf),
  );
  const wrap = h(
    "div",
    { class: `item${violatedClass(item.v, violations)}`, "data-key": item.key },
    row,
    violationBadges(item.v, violations),
  );
  let io: HTMLElement | null = null;
  row.addEventListener("click", () => {
    if (io) {
      io.remove();
      io = null;
      return;
    }
    let input = item.input;
    try {
      input = JSON.stringify(JSON.parse(item.input), null, 2);
    } catch {
      // cut JSON stays as it is
    }
    io = h(
      "div",
      { class: "io" },
      h("div", null, h("div", { class: "cap" }, `Input · ${item.id}`), h("pre", null, input)),
      h(
        "div",
        null,
        h("div", { class: "cap" }, `Output · ${item.status}`),
        h("pre", null, item.output || "(none)"),
      ),
    );
    row.after(io);
  });
  if (item.child) wrap.append(h("div", { class: "child" }, renderAgent(item.child, t, violations)));
  return wrap;
}
