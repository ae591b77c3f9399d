/**
 * Small formatters shared by the console output, the vitest table and the HTML report. The report's
 * browser script bundles this module (src/report-client), so it imports nothing: what needs
 * @evals/core is in run-format.ts.
 */

/** 850 -> "850ms", 1234 -> "1.2s", 83_000 -> "1m23s", 4_000_000 -> "1h06m". */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === undefined || ms === null || !Number.isFinite(ms)) return "–";
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const totalSeconds = Math.round(ms / 1000);
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  if (hours > 0) return `${hours}h${String(minutes).padStart(2, "0")}m`;
  return `${minutes}m${String(seconds).padStart(2, "0")}s`;
}

/** 0.17103 -> "$0.171", 12.5 -> "$12.50", undefined or null -> "". */
export function formatCost(usd: number | null | undefined): string {
  if (usd === undefined || usd === null || !Number.isFinite(usd)) return "";
  if (usd === 0) return "$0";
  if (usd < 0.001) return "<$0.001";
  if (usd < 10) return `$${usd.toFixed(3)}`;
  return `$${usd.toFixed(2)}`;
}

export function formatPercent(rate: number): string {
  return `${Math.round(rate * 1000) / 10}%`;
}

/** Cuts text to `max` characters on one line, ending with "…" when cut. */
export function truncate(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  if (max <= 1) return line.slice(0, Math.max(0, max));
  const chars = [...line];
  return chars.length > max ? `${chars.slice(0, max - 1).join("")}…` : line;
}

/** "1 tool call", "3 tool calls". */
export function plural(count: number, word: string, many = `${word}s`): string {
  return `${count} ${count === 1 ? word : many}`;
}
