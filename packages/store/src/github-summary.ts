import { readFileSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { formatPercent } from "@evals/logging";
import type { RunDeltas, StoredCaseComparison, StoredRunComparison } from "./compare-runs.js";

/** What `evals compare --format github` writes: GitHub Actions' three ways of showing a result. */
export interface GithubReport {
  /** The job summary (Markdown, for $GITHUB_STEP_SUMMARY). */
  summary: string;
  /** Workflow commands, one a line: an `::error` annotation for each regressed case. */
  annotations: string;
  /** The body of a pull-request comment (Markdown, shorter than the summary). */
  comment: string;
}

export interface GithubReportOptions {
  /** The project folder case files are relative to, to find each case's line (default: cwd). */
  root?: string;
}

/** The comparison of a run with its baseline as a GitHub job summary, annotations and a PR comment. */
export function githubReport(
  comparison: StoredRunComparison,
  options: GithubReportOptions = {},
): GithubReport {
  const regressed = comparison.cases.filter((c) => c.change === "regressed");
  const improved = comparison.cases.filter((c) => c.change === "improved");
  const headline = verdictLine(comparison, regressed.length, improved.length);
  const runLine = `Baseline ${describeRun(comparison.a)} → this run ${describeRun(comparison.b)}.`;
  const summary = [
    "## evals compare",
    "",
    headline,
    "",
    runLine,
    "",
    ...incomparableNote(comparison),
    "| case | baseline | this run | B − A (95% interval) | change | first differing step | Δ cost | Δ tokens | Δ turns | Δ time |",
    "| --- | ---: | ---: | --- | --- | --- | ---: | ---: | ---: | ---: |",
    ...comparison.cases.map(caseRow),
    overallRow(comparison),
    "",
    ...unmatched(comparison),
  ].join("\n");
  const comment = [
    "### evals: this branch against its baseline",
    "",
    headline,
    "",
    runLine,
    "",
    ...(regressed.length > 0
      ? [
          "Regressed:",
          "",
          ...regressed.map((c) => `- **${caseName(c)}**: ${rateChange(c)}${stepNote(c)}`),
          "",
        ]
      : []),
    ...(improved.length > 0
      ? ["Improved:", "", ...improved.map((c) => `- ${caseName(c)}: ${rateChange(c)}`), ""]
      : []),
  ].join("\n");
  const annotations = regressed
    .map((c) => {
      const where = c.file
        ? `file=${escapeProperty(projectPath(c.file, options.root))},line=${caseLine(c, options.root)},`
        : "";
      const title = `title=${escapeProperty(`regressed: ${caseName(c)}`)}`;
      return `::error ${where}${title}::${escapeData(`${caseName(c)} regressed against the baseline: ${rateChange(c)}${stepNote(c)}`)}`;
    })
    .join("\n");
  return {
    summary: `${summary}\n`,
    annotations: annotations ? `${annotations}\n` : "",
    comment: `${comment}\n`,
  };
}

function verdictLine(comparison: StoredRunComparison, regressed: number, improved: number): string {
  const { overall } = comparison;
  const overallText = `overall ${formatPercent(overall.a.rate)} → ${formatPercent(overall.b.rate)} (${signedPercent(overall.difference.difference)}, ${interval(overall)}: ${overall.change})`;
  if (regressed > 0) return `**${regressed} case(s) regressed beyond noise**; ${overallText}.`;
  if (overall.change === "regressed") return `**The pass rate regressed beyond noise**: ${overallText}.`;
  return `No regression beyond noise${improved > 0 ? `, ${improved} case(s) improved` : ""}; ${overallText}.`;
}

function describeRun(run: StoredRunComparison["a"]): string {
  const where = [run.git_branch, run.git_commit?.slice(0, 12)].filter(Boolean).join(" @ ");
  return `\`${run.id.slice(0, 12)}\`${where ? ` (${where})` : ""}`;
}

function incomparableNote(comparison: StoredRunComparison): string[] {
  if (comparison.incomparable.length === 0) return [];
  return [`> **Compared with --force**: the runs differ in ${comparison.incomparable.join("; ")}.`, ""];
}

function caseName(c: Pick<StoredCaseComparison, "suite" | "case_id">): string {
  return c.suite ? `${c.suite} › ${c.case_id}` : c.case_id;
}

function caseRow(c: StoredCaseComparison): string {
  const cells = [
    caseName(c),
    `${c.a.passed}/${c.a.trials}`,
    `${c.b.passed}/${c.b.trials}`,
    `${signedPercent(c.difference.difference)} (${interval(c)})`,
    c.change === "within noise" ? "within noise" : `**${c.change}**`,
    c.flipped ? stepText(c) : "",
    ...deltaCells(c.deltas),
  ];
  return `| ${cells.map(escapeCell).join(" | ")} |`;
}

function overallRow(comparison: StoredRunComparison): string {
  const o = comparison.overall;
  const cells = [
    "**overall**",
    `${o.a.passed}/${o.a.trials}`,
    `${o.b.passed}/${o.b.trials}`,
    `${signedPercent(o.difference.difference)} (${interval(o)})`,
    o.change,
    "",
    ...deltaCells(o.deltas),
  ];
  return `| ${cells.join(" | ")} |`;
}

function deltaCells(d: RunDeltas): string[] {
  const signed = (value: number | undefined, format: (v: number) => string) =>
    value === undefined ? "" : `${value > 0 ? "+" : value < 0 ? "−" : "±"}${format(Math.abs(value))}`;
  return [
    signed(d.cost_usd, (v) => `$${v.toFixed(4)}`),
    signed(d.tokens, (v) => v.toFixed(0)),
    signed(d.turns, (v) => v.toFixed(1)),
    signed(d.duration_ms, (v) => `${(v / 1000).toFixed(1)}s`),
  ];
}

function unmatched(comparison: StoredRunComparison): string[] {
  const list = (title: string, cases: { suite: string | null; case_id: string }[]) =>
    cases.length > 0 ? [`${title}: ${cases.map(caseName).join(", ")}`, ""] : [];
  return [
    ...list("Only in the baseline", comparison.only_in_a),
    ...list("Only in this run", comparison.only_in_b),
  ];
}

function signedPercent(value: number): string {
  return `${value > 0 ? "+" : value < 0 ? "−" : "±"}${formatPercent(Math.abs(value))}`;
}

function interval(side: Pick<StoredCaseComparison, "difference">): string {
  return `${signedPercent(side.difference.ci_low)} to ${signedPercent(side.difference.ci_high)}`;
}

function rateChange(c: StoredCaseComparison): string {
  return `${c.a.passed}/${c.a.trials} → ${c.b.passed}/${c.b.trials} passed, B − A ${signedPercent(c.difference.difference)} (95% interval ${interval(c)})`;
}

function stepText(c: StoredCaseComparison): string {
  const d = c.divergence;
  if (!d) return "same calls";
  const call = (step: { tool: string } | null) => (step ? step.tool : "(ended)");
  return `step ${d.step + 1}: ${call(d.a)} → ${call(d.b)}`;
}

function stepNote(c: StoredCaseComparison): string {
  return c.divergence ? `; first differing step ${stepText(c).replace(/^step /, "")}` : "";
}

/** A case file as GitHub wants it: relative to the project (the checkout), when it is inside it. */
function projectPath(file: string, root = process.cwd()): string {
  const inside = relative(root, resolve(root, file));
  return inside.startsWith("..") || isAbsolute(inside) ? file : inside.split(sep).join("/");
}

/** The line of the case's `id:` in its file (YAML or JSON), else 1. */
function caseLine(c: StoredCaseComparison, root = process.cwd()): number {
  try {
    const lines = readFileSync(isAbsolute(c.file!) ? c.file! : resolve(root, c.file!), "utf8").split("\n");
    const id = c.case_id.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const found = lines.findIndex((line) =>
      new RegExp(`^\\s*-?\\s*"?id"?\\s*:\\s*["']?${id}["']?\\s*,?\\s*$`).test(line),
    );
    return found === -1 ? 1 : found + 1;
  } catch {
    return 1;
  }
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

/** GitHub's escaping of a workflow command's message (see its toolkit's command.ts). */
function escapeData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}
