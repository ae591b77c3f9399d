import type { CaseResult } from "./case-result.js";
import { countViolations, failureSummary } from "./case-summary.js";
import { formatCost, formatDuration, formatPercent, plural, truncate } from "./format.js";
import { caseOrigin } from "./origin.js";
import { palette } from "./terminal.js";

export interface CasesTableOptions {
  color?: boolean;
  /** Widest line (default 120). */
  width?: number;
  /** At most this many scorer columns; more scorers show as one mean "score" column (default 4). */
  maxScorerColumns?: number;
  /**
   * The run's wall time, shown in the header of a run of one suite (default, and with several
   * suites: the suite's cases' durations summed, which overlap when trials ran at once).
   */
  wallTimeMs?: number;
}

interface Column {
  title: string;
  align: "left" | "right";
  cells: { text: string; paint?: (s: string) => string }[];
}

/**
 * Each suite's cases as a table: verdict, case, trials, one column per scorer, violations (those the
 * case expected counted apart), duration (each case its own trials' time) and cost (Claude Code's
 * estimate from the token counts; "replayed" for a case whose runs were replayed: nothing was
 * spent), with the reason under every case that did not pass.
 *
 *     gemini-offloader skill · 3 of 4 passed (75%) · 12.4s · ≈$0.420 (estimated)
 *       result  case                 trials  trajectory  approval-gate  violations  time   est. cost
 *       ✓ pass  answers from cache   3/3     1.00        1.00           –           2.1s   $0.120
 *       ✗ fail  asks before deleting 1/3     0.67 ✗      0.33 ✗         2 errors    4.0s   $0.200
 *               → approval-gate 0.33 < 0.80; approval-gate/missing-approval: Bash ran without approval
 */
export function formatCasesTable(cases: CaseResult[], options: CasesTableOptions = {}): string {
  const bySuite = new Map<string, CaseResult[]>();
  for (const c of cases) {
    const suite = c.suite ?? "evals";
    bySuite.set(suite, [...(bySuite.get(suite) ?? []), c]);
  }
  const wallTimeMs = bySuite.size === 1 ? options.wallTimeMs : undefined;
  return [...bySuite].map(([suite, list]) => suiteTable(suite, list, { ...options, wallTimeMs })).join("\n");
}

function suiteTable(suite: string, cases: CaseResult[], options: CasesTableOptions): string {
  const p = palette(options.color ?? false);
  const width = Math.max(60, options.width ?? 120);
  const passed = cases.filter((c) => c.status === "passed").length;
  const ran = cases.filter((c) => c.status !== "skipped").length;
  const costs = cases.map((c) => c.cost_usd).filter((v): v is number => v !== undefined);
  const head = [
    p.bold(suite),
    `${passed} of ${plural(ran, "case")} passed (${formatPercent(ran ? passed / ran : 0)})`,
    formatDuration(options.wallTimeMs ?? cases.reduce((sum, c) => sum + c.duration_ms, 0)),
  ];
  if (costs.length > 0) head.push(`≈${formatCost(costs.reduce((a, b) => a + b, 0))} (estimated)`);
  const origins = [...new Set(cases.map(caseOrigin).filter((o) => o !== undefined))];
  if (origins.length > 0) head.push(origins.join(", "));
  const lines = [head.join(p.gray(" · "))];

  const scorers = [...new Set(cases.flatMap((c) => c.scores.map((s) => s.scorer)))];
  const perScorer = scorers.length <= (options.maxScorerColumns ?? 4);
  const verdict = {
    passed: { text: "✓ pass", paint: p.green },
    failed: { text: "✗ fail", paint: p.red },
    error: { text: "! error", paint: p.red },
    skipped: { text: "- skip", paint: p.yellow },
  };
  const columns: Column[] = [
    { title: "result", align: "left", cells: cases.map((c) => verdict[c.status]) },
    { title: "case", align: "left", cells: cases.map((c) => ({ text: c.name })) },
    {
      title: "trials",
      align: "right",
      cells: cases.map((c) => ({
        text:
          c.trials.length === 0
            ? "–"
            : `${c.trials.filter((t) => t.status === "passed").length}/${c.trials.length}`,
      })),
    },
  ];
  if (perScorer) {
    for (const scorer of scorers) {
      columns.push({
        title: scorer,
        align: "right",
        cells: cases.map((c) => {
          const score = c.scores.find((s) => s.scorer === scorer);
          if (!score) return { text: "–" };
          return {
            text: `${score.score.toFixed(2)}${score.passed ? "  " : " ✗"}`,
            paint: score.passed ? p.green : p.red,
          };
        }),
      });
    }
  } else {
    columns.push({
      title: "score",
      align: "right",
      cells: cases.map((c) => {
        if (c.scores.length === 0) return { text: "–" };
        const mean = c.scores.reduce((sum, s) => sum + s.score, 0) / c.scores.length;
        const failing = c.scores.filter((s) => !s.passed).length;
        return {
          text: `${mean.toFixed(2)}${failing ? ` (${failing} ✗)` : ""}`,
          paint: failing ? p.red : p.green,
        };
      }),
    });
  }
  columns.push(
    {
      title: "violations",
      align: "left",
      cells: cases.map((c) => {
        const { error, warning, expected } = countViolations(c.violations);
        const parts = [
          error ? plural(error, "error") : "",
          warning ? plural(warning, "warning") : "",
          expected ? `${expected} expected` : "",
        ].filter(Boolean);
        return { text: parts.join(", ") || "–", paint: error ? p.red : warning ? p.yellow : p.gray };
      }),
    },
    { title: "time", align: "right", cells: cases.map((c) => ({ text: formatDuration(c.duration_ms) })) },
    {
      title: "est. cost",
      align: "right",
      cells: cases.map((c) => ({ text: formatCost(c.cost_usd) || caseOrigin(c) || "–" })),
    },
  );

  // Fit the table to the width by narrowing the case column.
  const widths = columns.map((col) =>
    Math.max(col.title.length, ...col.cells.map((cell) => [...cell.text].length)),
  );
  const gap = 2;
  const indent = 2;
  const others =
    widths.reduce((sum, w, i) => (i === 1 ? sum : sum + w), 0) + gap * (columns.length - 1) + indent;
  widths[1] = Math.max(12, Math.min(widths[1]!, width - others));
  const row = (cells: { text: string; paint?: (s: string) => string }[]) =>
    " ".repeat(indent) +
    cells
      .map((cell, i) => {
        const w = widths[i]!;
        const text = truncate(cell.text, w);
        const padded = columns[i]!.align === "right" ? text.padStart(w) : text.padEnd(w);
        return cell.paint ? cell.paint(padded) : padded;
      })
      .join(" ".repeat(gap))
      .trimEnd();
  lines.push(p.gray(row(columns.map((col) => ({ text: col.title })))));
  cases.forEach((c, i) => {
    lines.push(row(columns.map((col) => col.cells[i]!)));
    const why = failureSummary(c);
    if (why) {
      const pad = indent + widths[0]! + gap;
      lines.push(`${" ".repeat(pad)}${p.red("→")} ${truncate(why, Math.max(20, width - pad - 2))}`);
    }
  });
  return `${lines.join("\n")}\n`;
}
