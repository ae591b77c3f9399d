import { formatCost } from "../format.js";
import type { ViolationView } from "../html-data.js";
import { h } from "./dom.js";

/** A status as a colored pill: "passed", "failed", "error", "skipped". */
export function pill(status: string): HTMLElement {
  return h("span", { class: `pill p-${status}` }, status);
}

export function scoreColor(score: number, passed: boolean): string {
  return passed ? "var(--pass)" : score >= 0.5 ? "var(--warn)" : "var(--fail)";
}

/** A cost, or "–" when none was reported (as the console's case table shows it). */
export function costText(usd: number | null): string {
  return formatCost(usd) || "–";
}

/** "error", or "expected error" for a violation the case asked for. */
export function severityLabel(v: ViolationView): string {
  return v.expected ? `expected ${v.severity}` : v.severity;
}

/** The severity's badge class: the severity, or "expected" for a violation the case asked for. */
export function severityClass(v: ViolationView): string {
  return v.expected ? "expected" : v.severity;
}
