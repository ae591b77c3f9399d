import { plural } from "../format.js";
import type { CaseDetail, CaseRow, ReportIndex, ViolationView } from "../html-data.js";
import { type DetailBody, renderDetail } from "./case-detail.js";
import { caseRowElement } from "./case-row.js";
import { h, readJson } from "./dom.js";

interface Filters {
  q: string;
  status: string;
  suite: string;
  tag: string;
  viol: string;
  sort: string;
}

const STATUS_RANK: Record<string, number> = { error: 0, failed: 1, passed: 2, skipped: 3 };

const SORTS: Record<string, (a: CaseRow, b: CaseRow) => number> = {
  default: (a, b) => (STATUS_RANK[a.status] ?? 9) - (STATUS_RANK[b.status] ?? 9) || a.n - b.n,
  name: (a, b) => a.name.localeCompare(b.name),
  score: (a, b) => (a.score ?? 2) - (b.score ?? 2),
  duration: (a, b) => b.durationMs - a.durationMs,
  cost: (a, b) => (b.costUsd ?? -1) - (a.costUsd ?? -1),
  violations: (a, b) =>
    b.violations.error * 1000 + b.violations.warning - (a.violations.error * 1000 + a.violations.warning),
  order: (a, b) => a.n - b.n,
};

function matches(c: CaseRow, state: Filters, text: string): boolean {
  if (state.status !== "all" && c.status !== state.status) return false;
  if (state.suite && c.suite !== state.suite) return false;
  if (state.tag && !c.tags.includes(state.tag)) return false;
  const v = c.violations;
  const any = v.error + v.warning + v.info;
  if (state.viol === "error" && v.error === 0) return false;
  if (state.viol === "warning" && v.warning === 0) return false;
  if (state.viol === "any" && any === 0) return false;
  if (state.viol === "none" && any > 0) return false;
  return !state.q || text.includes(state.q);
}

/**
 * The case table with its filters: the suite and tag bars, the toolbar (search, status, suite, tag,
 * violations, sort), and the rows, each opening its details (parsed from the page only then).
 */
export function caseList(index: ReportIndex) {
  const state: Filters = { q: "", status: "all", suite: "", tag: "", viol: "", sort: "default" };
  const suites = Object.keys(index.bySuite);
  const tags = Object.keys(index.byTag);
  const details = new Map<number, CaseDetail>();
  const rows = new Map<number, { row: HTMLElement; detail: HTMLElement | null; text: string }>();
  for (const c of index.cases) {
    rows.set(c.n, {
      row: caseRowElement(c, suites.length > 1, () => toggle(c.n)),
      detail: null,
      text: [c.name, c.id, c.suite, c.why, ...c.tags].join(" ").toLowerCase(),
    });
  }

  // ---- toolbar --------------------------------------------------------------------------------
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
  const counts: Record<string, number> = { all: index.cases.length };
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
  const select = (label: string, key: keyof Filters, options: [string, string][]) => {
    const el = h("select", { "aria-label": label }) as HTMLSelectElement;
    for (const [value, text] of options) el.append(h("option", { value }, text));
    el.addEventListener("change", () => {
      state[key] = el.value;
      apply();
    });
    return el;
  };
  const named = (names: string[]) => names.map((name): [string, string] => [name, name]);
  const suiteSelect = select("Suite", "suite", [["", "All suites"], ...named(suites)]);
  const tagSelect = select("Tag", "tag", [["", "All tags"], ...named(tags)]);
  const violSelect = select("Violations", "viol", [
    ["", "Any violations"],
    ["error", "With errors"],
    ["warning", "With warnings"],
    ["any", "With any violation"],
    ["none", "Without violations"],
  ]);
  const sortSelect = select("Sort", "sort", [
    ["default", "Failures first"],
    ["name", "Name"],
    ["score", "Lowest score"],
    ["duration", "Slowest"],
    ["cost", "Most expensive"],
    ["violations", "Most violations"],
    ["order", "Run order"],
  ]);
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

  // ---- suite and tag bars ---------------------------------------------------------------------
  const groupBars = (
    title: string,
    groups: Record<string, { total: number; passed: number; pass_rate: number }>,
    key: "suite" | "tag",
  ) => {
    const entries = Object.entries(groups);
    if (entries.length === 0) return null;
    const bars = entries.map(([name, t]) =>
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
    return h("div", { class: "group" }, h("h3", null, title), h("div", { class: "bars" }, bars));
  };
  const groups =
    suites.length > 1 || tags.length > 0
      ? h(
          "section",
          { class: "groups" },
          suites.length > 1 ? groupBars("Suites", index.bySuite, "suite") : null,
          tags.length > 0 ? groupBars("Tags", index.byTag, "tag") : null,
        )
      : null;

  // ---- the table ------------------------------------------------------------------------------
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

  function apply(): void {
    const list = index.cases.filter((c) => matches(c, state, rows.get(c.n)!.text));
    list.sort(SORTS[state.sort] ?? SORTS.default);
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
      detail = readJson<CaseDetail>(`case-${n}`)!;
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
    const c = index.cases[n]!;
    if (want) {
      entry.detail ??= h(
        "tr",
        { class: "detail" },
        h(
          "td",
          { colspan: 7 },
          renderDetail(c, detailOf(n), (v) => jumpTo(n, v)),
        ),
      );
      entry.row.after(entry.detail);
      history.replaceState(null, "", `#case=${encodeURIComponent(c.id)}`);
    } else {
      entry.detail?.remove();
      history.replaceState(null, "", location.pathname + location.search);
    }
    return entry.detail;
  }

  /** Opens the case on the violation's trial and scrolls to where it happened, flashing it. */
  function jumpTo(n: number, v: ViolationView): void {
    const body = toggle(n, true)?.querySelector<DetailBody>(".detail-body");
    body?.showTrial?.(v.trial);
    const target = body?.querySelector<HTMLElement>(`[data-key="${CSS.escape(v.target ?? "")}"]`);
    if (!target) return;
    target.scrollIntoView({ block: "center", behavior: "smooth" });
    target.classList.remove("flash");
    void target.offsetWidth;
    target.classList.add("flash");
  }

  /** Opens the case a `#case=<id>` link names. */
  function openFromHash(): void {
    const wanted = /^#case=(.+)$/.exec(location.hash);
    if (!wanted) return;
    const id = decodeURIComponent(wanted[1]!);
    const c = index.cases.find((x) => x.id === id);
    if (!c) return;
    toggle(c.n, true);
    rows.get(c.n)!.row.scrollIntoView({ block: "start" });
  }

  /** "/" focuses the search box; Escape in it clears it. */
  function bindKeys(): void {
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
  }

  return { groups, toolbar, table, empty, apply, openFromHash, bindKeys };
}
