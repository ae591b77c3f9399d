/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import type {
  AgentView,
  CaseDetail,
  CaseRow,
  ItemView,
  ReportIndex,
  TrialView,
  ViolationView,
} from "./html-data.js";

/**
 * The HTML report's script. It is embedded as source (`reportClient.toString()`), so it must stay
 * self-contained: no imports at run time, nothing from the enclosing module. Every piece of data is
 * put on the page through textContent / text nodes, never parsed as HTML.
 */
export function reportClient(): void {
  type Props = Record<string, unknown>;
  type Child = Node | string | number | null | undefined | false | Child[];

  const index = JSON.parse(document.getElementById("evals-index")!.textContent || "{}") as ReportIndex;
  const details = new Map<number, CaseDetail>();
  const app = document.getElementById("app")!;

  function h(tag: string, props?: Props | null, ...children: Child[]): HTMLElement {
    const el = document.createElement(tag);
    if (props) {
      for (const [key, value] of Object.entries(props)) {
        if (value === null || value === undefined || value === false) continue;
        if (key === "class") el.className = String(value);
        else if (key === "text") el.textContent = String(value);
        else if (key === "style") el.setAttribute("style", String(value));
        else if (key.startsWith("on") && typeof value === "function") {
          el.addEventListener(key.slice(2), value as EventListener);
        } else el.setAttribute(key, value === true ? "" : String(value));
      }
    }
    append(el, children);
    return el;
  }
  function append(el: HTMLElement, children: Child[]): void {
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      if (Array.isArray(child)) append(el, child);
      else el.append(child instanceof Node ? child : String(child));
    }
  }

  const duration = (ms: number | null | undefined): string => {
    if (ms === null || ms === undefined || !Number.isFinite(ms)) return "–";
    if (ms < 1000) return `${Math.round(ms)}ms`;
    if (ms < 60000) return `${(ms / 1000).toFixed(1)}s`;
    const s = Math.round(ms / 1000);
    const hours = Math.floor(s / 3600);
    const minutes = Math.floor((s % 3600) / 60);
    return hours > 0
      ? `${hours}h${String(minutes).padStart(2, "0")}m`
      : `${minutes}m${String(s % 60).padStart(2, "0")}s`;
  };
  const cost = (usd: number | null | undefined): string =>
    usd === null || usd === undefined
      ? "–"
      : usd < 0.001 && usd > 0
        ? "<$0.001"
        : `$${usd < 10 ? usd.toFixed(3) : usd.toFixed(2)}`;
  const pct = (rate: number): string => `${Math.round(rate * 1000) / 10}%`;
  const statusLabel: Record<string, string> = {
    passed: "passed",
    failed: "failed",
    error: "error",
    skipped: "skipped",
  };
  const scoreColor = (score: number, passed: boolean) =>
    passed ? "var(--pass)" : score >= 0.5 ? "var(--warn)" : "var(--fail)";
  const pill = (status: string) => h("span", { class: `pill p-${status}` }, statusLabel[status] ?? status);
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

  // ---- header, cards, groups ------------------------------------------------------------------
  const meta = index.meta;
  const sum = index.summary;
  const origins = meta.origins ?? {};
  const allTrials = Object.values(origins).reduce((total, n) => total + (n ?? 0), 0);
  const replayedTrials = allTrials - (origins.live ?? 0);
  const expectedViolations = sum.violations.expected ?? 0;
  document.title = index.title;
  const when = new Date(meta.finished_at);
  const metaChips: Child[] = [
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
    replayedTrials > 0
      ? h(
          "span",
          {
            class: "chip replayed",
            title: "The model's answers came from recordings: no model was called and nothing was spent.",
          },
          h("b", null, "replayed"),
          ` ${replayedTrials} of ${plural(allTrials, "trial")}`,
          meta.recorded_model ? ` · recorded model ${meta.recorded_model}` : "",
        )
      : null,
    h("span", { class: "chip" }, "node ", h("b", null, meta.node_version)),
    meta.ci ? h("span", { class: "chip" }, h("b", null, "CI")) : null,
  ];
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
    h("span", null, pct(sum.pass_rate)),
  );
  const cards = h(
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
    h(
      "div",
      { class: "card" },
      h("div", { class: "label" }, "Failed"),
      h(
        "div",
        { class: "value", style: sum.failed + sum.errored ? "color:var(--fail)" : "" },
        String(sum.failed + sum.errored),
      ),
      h("div", { class: "hint" }, `${sum.failed} failed · ${sum.errored} errored`),
    ),
    h(
      "div",
      { class: "card" },
      h("div", { class: "label" }, "Violations"),
      h(
        "div",
        { class: "value" },
        String(sum.violations.error + sum.violations.warning + sum.violations.info),
      ),
      h(
        "div",
        { class: "hint" },
        `${sum.violations.error} errors · ${sum.violations.warning} warnings · ${sum.violations.info} info${expectedViolations ? ` · ${expectedViolations} expected` : ""}`,
      ),
    ),
    h(
      "div",
      { class: "card" },
      h("div", { class: "label" }, "Duration"),
      h("div", { class: "value" }, duration(sum.duration_ms)),
      h("div", { class: "hint" }, `${plural(sum.trials, "trial")} over ${plural(sum.total, "case")}`),
    ),
    h(
      "div",
      { class: "card" },
      h("div", { class: "label" }, "Cost"),
      h("div", { class: "value" }, cost(sum.cost_usd)),
      h(
        "div",
        { class: "hint" },
        sum.cost_usd !== undefined
          ? `reported by Claude Code${replayedTrials ? " (live runs only)" : ""}`
          : replayedTrials
            ? "replayed: nothing was spent"
            : "not reported",
      ),
    ),
  );

  // ---- filters --------------------------------------------------------------------------------
  const state = { q: "", status: "all", suite: "", tag: "", viol: "", sort: "default" };
  const groupBars = (
    title: string,
    groups:
      | Record<string, ReportIndex["summary"]>
      | Record<string, { total: number; passed: number; pass_rate: number }>,
    key: "suite" | "tag",
  ) => {
    const entries = Object.entries(groups);
    if (entries.length === 0) return null;
    const rows = entries.map(([name, t]) =>
      h(
        "button",
        {
          class: "bar-row",
          "data-key": key,
          "data-value": name,
          title: `${name}: ${t.passed}/${t.total} passed`,
          onclick: () => {
            state[key] = state[key] === name ? "" : name;
            (key === "suite" ? suiteSelect : tagSelect).value = state[key];
            apply();
          },
        },
        h("span", { class: "name" }, name),
        h(
          "span",
          { class: "track" },
          h("i", { class: "fill", style: `width:${(t.pass_rate * 100).toFixed(1)}%;display:block` }),
        ),
        h("span", { class: "num" }, `${t.passed}/${t.total}`),
      ),
    );
    return h("div", { class: "group" }, h("h3", null, title), h("div", { class: "bars" }, rows));
  };
  const suites = Object.keys(index.bySuite);
  const tags = Object.keys(index.byTag);

  const search = h("input", {
    class: "search",
    type: "search",
    placeholder: "Search cases, tags, reasons…",
    "aria-label": "Search cases",
  }) as HTMLInputElement;
  search.addEventListener("input", () => {
    state.q = search.value.trim().toLowerCase();
    apply();
  });
  const counts: Record<string, number> = {
    all: index.cases.length,
    passed: 0,
    failed: 0,
    error: 0,
    skipped: 0,
  };
  for (const c of index.cases) counts[c.status] = (counts[c.status] ?? 0) + 1;
  const seg = h("div", { class: "seg", role: "group", "aria-label": "Status" });
  for (const status of ["all", "passed", "failed", "error", "skipped"]) {
    if (status !== "all" && !counts[status]) continue;
    seg.append(
      h(
        "button",
        {
          "data-status": status,
          class: status === "all" ? "on" : "",
          onclick: () => {
            state.status = status;
            for (const b of seg.querySelectorAll("button"))
              b.classList.toggle("on", b.getAttribute("data-status") === status);
            apply();
          },
        },
        status === "all" ? "All" : status[0]!.toUpperCase() + status.slice(1),
        h("span", { class: "n" }, String(counts[status])),
      ),
    );
  }
  const select = (label: string, options: [string, string][], onchange: (value: string) => void) => {
    const el = h("select", { "aria-label": label }) as HTMLSelectElement;
    for (const [value, text] of options) el.append(h("option", { value }, text));
    el.addEventListener("change", () => onchange(el.value));
    return el;
  };
  const suiteSelect = select(
    "Suite",
    [["", "All suites"], ...suites.map((s): [string, string] => [s, s])],
    (v) => {
      state.suite = v;
      apply();
    },
  );
  const tagSelect = select("Tag", [["", "All tags"], ...tags.map((t): [string, string] => [t, t])], (v) => {
    state.tag = v;
    apply();
  });
  const violSelect = select(
    "Violations",
    [
      ["", "Any violations"],
      ["error", "With errors"],
      ["warning", "With warnings"],
      ["any", "With any violation"],
      ["none", "Without violations"],
    ],
    (v) => {
      state.viol = v;
      apply();
    },
  );
  const sortSelect = select(
    "Sort",
    [
      ["default", "Failures first"],
      ["name", "Name"],
      ["score", "Lowest score"],
      ["duration", "Slowest"],
      ["cost", "Most expensive"],
      ["violations", "Most violations"],
      ["order", "Run order"],
    ],
    (v) => {
      state.sort = v;
      apply();
    },
  );
  const shown = h("span", { class: "count" });
  const toolbar = h(
    "div",
    { class: "toolbar" },
    h("div", { class: "search-box" }, search),
    seg,
    suites.length > 1 ? suiteSelect : null,
    tags.length > 0 ? tagSelect : null,
    violSelect,
    sortSelect,
    shown,
  );

  // ---- the case table -------------------------------------------------------------------------
  const tbody = h("tbody");
  const table = h(
    "table",
    { class: "cases" },
    h(
      "thead",
      null,
      h(
        "tr",
        null,
        h("th", null, "Result"),
        h("th", null, "Case"),
        h("th", { class: "hide-sm" }, "Trials"),
        h("th", null, "Score"),
        h("th", { class: "hide-sm" }, "Violations"),
        h("th", { style: "text-align:right" }, "Duration"),
        h("th", { style: "text-align:right", class: "hide-sm" }, "Cost"),
      ),
    ),
    tbody,
  );
  const empty = h("div", { class: "empty", hidden: true }, "No case matches these filters.");
  const rows = new Map<number, { row: HTMLElement; detail: HTMLElement | null; text: string }>();
  for (const c of index.cases) {
    const row = caseRowElement(c);
    rows.set(c.n, {
      row,
      detail: null,
      text: [c.name, c.id, c.suite, c.why, ...c.tags].join(" ").toLowerCase(),
    });
  }

  function caseRowElement(c: CaseRow): HTMLElement {
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
            `${c.violations[sev]} ${sev === "error" ? "err" : sev === "warning" ? "warn" : "info"}`,
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
        onclick: () => toggle(c.n),
        onkeydown: (e: KeyboardEvent) => {
          if (e.key !== "Enter" && e.key !== " ") return;
          e.preventDefault();
          toggle(c.n);
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
          suites.length > 1
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
      h("td", { class: "num" }, duration(c.durationMs)),
      h(
        "td",
        { class: "num hide-sm" },
        c.costUsd === null && c.origin
          ? h("span", { class: "none", title: "nothing was spent on replayed runs" }, c.origin)
          : cost(c.costUsd),
      ),
    );
  }

  const rank: Record<string, number> = { error: 0, failed: 1, skipped: 3, passed: 2 };
  function apply(): void {
    const list = index.cases.filter((c) => {
      if (state.status !== "all" && c.status !== state.status) return false;
      if (state.suite && c.suite !== state.suite) return false;
      if (state.tag && !c.tags.includes(state.tag)) return false;
      const v = c.violations;
      if (state.viol === "error" && v.error === 0) return false;
      if (state.viol === "warning" && v.warning === 0) return false;
      if (state.viol === "any" && v.error + v.warning + v.info === 0) return false;
      if (state.viol === "none" && v.error + v.warning + v.info > 0) return false;
      if (state.q && !rows.get(c.n)!.text.includes(state.q)) return false;
      return true;
    });
    const by: Record<string, (a: CaseRow, b: CaseRow) => number> = {
      default: (a, b) => (rank[a.status] ?? 9) - (rank[b.status] ?? 9) || a.n - b.n,
      name: (a, b) => a.name.localeCompare(b.name),
      score: (a, b) => (a.score ?? 2) - (b.score ?? 2),
      duration: (a, b) => b.durationMs - a.durationMs,
      cost: (a, b) => (b.costUsd ?? -1) - (a.costUsd ?? -1),
      violations: (a, b) =>
        b.violations.error * 1000 + b.violations.warning - (a.violations.error * 1000 + a.violations.warning),
      order: (a, b) => a.n - b.n,
    };
    list.sort(by[state.sort] ?? by.default);
    const fragment = document.createDocumentFragment();
    for (const c of list) {
      const entry = rows.get(c.n)!;
      fragment.append(entry.row);
      if (entry.detail && entry.row.classList.contains("open")) fragment.append(entry.detail);
    }
    tbody.replaceChildren(fragment);
    for (const b of document.querySelectorAll<HTMLElement>(".bar-row")) {
      const key = b.getAttribute("data-key") as "suite" | "tag";
      b.classList.toggle("on", state[key] === b.getAttribute("data-value"));
    }
    empty.hidden = list.length > 0;
    shown.textContent = `${list.length} of ${plural(index.cases.length, "case")}`;
  }

  // ---- a case's details -----------------------------------------------------------------------
  function detailOf(n: number): CaseDetail {
    let detail = details.get(n);
    if (!detail) {
      detail = JSON.parse(document.getElementById(`case-${n}`)?.textContent || "null") as CaseDetail;
      details.set(n, detail);
    }
    return detail;
  }

  function toggle(n: number, open?: boolean): HTMLElement | null {
    const entry = rows.get(n)!;
    const isOpen = entry.row.classList.contains("open");
    const want = open ?? !isOpen;
    if (want === isOpen) return entry.detail;
    entry.row.classList.toggle("open", want);
    if (want) {
      if (!entry.detail)
        entry.detail = h(
          "tr",
          { class: "detail" },
          h("td", { colspan: 7 }, renderDetail(index.cases[n]!, detailOf(n))),
        );
      entry.row.after(entry.detail);
      history.replaceState(null, "", `#case=${encodeURIComponent(index.cases[n]!.id)}`);
    } else {
      entry.detail?.remove();
      history.replaceState(null, "", location.pathname + location.search);
    }
    return entry.detail;
  }

  function renderDetail(c: CaseRow, d: CaseDetail): HTMLElement {
    const body = h("div", { class: "detail-body" });
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

    // Scores
    const scores = h("div", { class: "panel" }, h("h4", null, "Scores"));
    if (c.scores.length === 0) scores.append(h("div", { class: "none" }, "No scorers."));
    for (const s of c.scores) {
      scores.append(
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
    // Trial statistics
    const stats = h("div", { class: "panel" }, h("h4", null, "Trials"));
    const st = d.stats;
    if (st) {
      const dl = h("dl", { class: "kv" });
      const add = (k: string, v: string) => dl.append(h("dt", null, k), h("dd", null, v));
      add("passed", `${st.passed} of ${st.trials}`);
      add("pass rate", `${pct(st.pass_rate)}  (95% CI ${pct(st.ci_low)}–${pct(st.ci_high)})`);
      add("mean score", `${st.mean_score.toFixed(2)} ± ${st.score_stddev.toFixed(2)}`);
      add(`pass@${st.k}`, pct(st.pass_at_k));
      add(`pass^${st.k}`, pct(st.pass_hat_k));
      add("flip rate", pct(st.flip_rate));
      stats.append(dl);
    } else stats.append(h("div", { class: "none" }, "No statistics."));
    // Violations
    const viol = h("div", { class: "panel" }, h("h4", null, `Violations (${d.violations.length})`));
    const vlist = h("div", { class: "vlist" });
    if (d.violations.length === 0) vlist.append(h("div", { class: "none" }, "No violations."));
    d.violations.forEach((v, i) => {
      vlist.append(
        h(
          "div",
          { class: `vitem ${v.expected ? "expected" : v.severity}`, "data-violation": i },
          h("span", { class: `sev sev-${v.expected ? "expected" : v.severity}` }, severityLabel(v)),
          h("span", { class: "rule" }, `${v.rule}/${v.type}`),
          c.trials > 1 ? h("span", { class: "none" }, ` · trial ${v.trial + 1}`) : null,
          h("div", { class: "msg" }, v.message),
          v.target
            ? h("button", { class: "linkish", onclick: () => jumpTo(c.n, v) }, "Show where it happened ↓")
            : v.agent
              ? h("span", { class: "none" }, `agent ${v.agent}`)
              : null,
        ),
      );
    });
    viol.append(vlist);
    body.append(h("div", { class: "panels" }, scores, stats, viol));

    // Trials and their timelines
    const tabs = h("div", { class: "tabs" }, h("span", { class: "label" }, "Timeline"));
    const holder = h("div");
    const tabButtons: HTMLElement[] = [];
    const show = (t: number) => {
      tabButtons.forEach((b, i) => {
        b.classList.toggle("on", i === t);
      });
      holder.replaceChildren(renderTrial(d.trials[t]!, d.violations));
      holder.setAttribute("data-trial", String(d.trials[t]!.trial));
    };
    d.trials.forEach((t, i) => {
      const b = h(
        "button",
        { class: "tab", onclick: () => show(i) },
        h("i", { class: `dot ${t.status}` }),
        `Trial ${t.trial + 1}`,
        h("span", { class: "none" }, duration(t.durationMs)),
      );
      tabButtons.push(b);
      tabs.append(b);
    });
    body.append(tabs, holder);
    (body as HTMLElement & { showTrial?: (t: number) => void }).showTrial = (trial: number) => {
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

  function renderTrial(t: TrialView, violations: ViolationView[]): HTMLElement {
    const box = h("div", { class: "timeline" });
    box.append(
      h(
        "div",
        { class: "tl-head" },
        pill(t.status),
        h("span", null, `${plural(t.sessions, "session")} · depth ${t.maxDepth}`),
        h("span", null, `duration ${duration(t.durationMs)}`),
        t.costUsd !== null ? h("span", null, `cost ${cost(t.costUsd)}`) : null,
        t.costUsd === null && t.recordedCostUsd !== null
          ? h(
              "span",
              { title: "what the recorded run cost; nothing was spent on this replay" },
              `recording's cost ${cost(t.recordedCostUsd)} (not spent)`,
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
          h("span", { class: `sev sev-${v.expected ? "expected" : v.severity}` }, severityLabel(v)),
          h("span", { class: "rule" }, `${v.rule}/${v.type}`),
          h("span", null, v.message),
        );
      }),
    );
  }

  function violatedClass(ids: number[] | undefined, violations: ViolationView[]): string {
    if (!ids || ids.length === 0) return "";
    const unexpected = ids.filter((i) => !violations[i]!.expected);
    if (unexpected.length === 0) return " violated only-expected";
    return unexpected.some((i) => violations[i]!.severity === "error")
      ? " violated"
      : " violated only-warning";
  }

  /** "error", or "expected error" for a violation the case asked for. */
  function severityLabel(v: ViolationView): string {
    return v.expected ? `expected ${v.severity}` : v.severity;
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
        h("span", null, duration(a.durationMs)),
        a.costUsd !== null ? h("span", null, cost(a.costUsd)) : null,
      ),
      a.depth > 0 && a.prompt ? h("div", { class: "agent-prompt", title: a.prompt }, `“${a.prompt}”`) : null,
      violationBadges(a.v, violations),
      items,
    );
  }

  function renderItem(item: ItemView, t: TrialView, violations: ViolationView[]): HTMLElement {
    const cls = violatedClass(item.v, violations);
    if (item.k === "call") {
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
        h("span", { class: "at" }, item.at !== null ? `+${duration(item.at)}` : ""),
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
        h("span", { class: "dur" }, duration(item.durationMs)),
        h("span", { class: "hide-sm" }, wf),
      );
      const wrap = h(
        "div",
        { class: `item${cls}`, "data-key": item.key },
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
    if (item.k === "final") {
      // An error result's subtype can be "success" (an API error): say why it ended instead.
      const facts = [
        item.isError ? (item.why ?? "") : item.subtype,
        item.turns !== null ? plural(item.turns, "turn") : "",
        duration(item.durationMs),
        item.costUsd !== null ? cost(item.costUsd) : "",
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
      h(
        "div",
        { class: `msg-item ${item.k}` },
        h("span", { class: "ic" }, item.k === "user" ? "›" : "…"),
        tx,
      ),
      violationBadges(item.v, violations),
    );
  }

  function jumpTo(n: number, v: ViolationView): void {
    const detail = toggle(n, true);
    const body = detail?.querySelector(".detail-body") as
      | (HTMLElement & { showTrial?: (t: number) => void })
      | null;
    body?.showTrial?.(v.trial);
    const target = body?.querySelector<HTMLElement>(`[data-key="${CSS.escape(v.target ?? "")}"]`);
    if (!target) return;
    target.scrollIntoView({ block: "center", behavior: "smooth" });
    target.classList.remove("flash");
    void target.offsetWidth;
    target.classList.add("flash");
  }

  // ---- page -----------------------------------------------------------------------------------
  const suiteNames = meta.suites.length > 1 ? `${meta.suites.length} suites` : (meta.suites[0] ?? meta.suite);
  append(app, [
    h(
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
          h("div", { class: "sub" }, `Eval report · ${suiteNames} · ${plural(sum.total, "case")}`),
        ),
      ),
      h("div", { class: "meta" }, metaChips),
    ),
    cards,
    suites.length > 1 || tags.length > 0
      ? h(
          "section",
          { class: "groups" },
          suites.length > 1 ? groupBars("Suites", index.bySuite, "suite") : null,
          tags.length > 0 ? groupBars("Tags", index.byTag, "tag") : null,
        )
      : null,
    toolbar,
    table,
    empty,
    h(
      "div",
      { class: "foot" },
      "Generated by @evals/logging · one file, works offline · ",
      h("kbd", null, "/"),
      " search · click a case for its timeline",
    ),
  ]);
  apply();

  document.addEventListener("keydown", (e) => {
    if (e.key === "/" && document.activeElement !== search) {
      e.preventDefault();
      search.focus();
    } else if (e.key === "Escape" && document.activeElement === search) {
      search.value = "";
      state.q = "";
      apply();
    }
  });
  const wanted = /^#case=(.+)$/.exec(location.hash);
  if (wanted) {
    const id = decodeURIComponent(wanted[1]!);
    const c = index.cases.find((x) => x.id === id);
    if (c) {
      toggle(c.n, true);
      rows.get(c.n)!.row.scrollIntoView({ block: "start" });
    }
  }
  document.documentElement.setAttribute("data-ready", "true");
}
