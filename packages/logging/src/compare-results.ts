import { eventsOfType, runSummary } from "@evals/core";
import { z } from "zod";
import type { CaseResult, TrialResult } from "./case-result.js";
import {
  type ComparisonVerdict,
  compareRates,
  meanOf,
  type PassRate,
  passRate,
  type RateDifference,
} from "./compare-stats.js";
import { formatDuration, formatPercent, plural, truncate } from "./format.js";
import type { ResultsFile } from "./results-file.js";
import { palette } from "./terminal.js";

/** Per-trial means of what a variant's runs did; left out where not every trial's run says (see README). */
export const RunMetricsSchema = z.object({
  turns: z.number().optional(),
  tool_calls: z.number().optional(),
  /** Input (with cache creation and cache reads) plus output tokens. */
  tokens: z.number().optional(),
  duration_ms: z.number().optional(),
});
export type RunMetrics = z.infer<typeof RunMetricsSchema>;

/** A pass rate with its 95% Wilson interval. */
export const PassRateSchema = z.object({
  passed: z.number().int().nonnegative(),
  trials: z.number().int().nonnegative(),
  rate: z.number().min(0).max(1),
  ci_low: z.number().min(0).max(1),
  ci_high: z.number().min(0).max(1),
});

/** One variant of a case (or of all matched cases): its pass rate and its runs' means. */
export const VariantSideSchema = PassRateSchema.extend({ metrics: RunMetricsSchema });
export type VariantSide = z.infer<typeof VariantSideSchema>;

/** B − A of the pass rates with its 95% Newcombe interval, and the verdict. */
export const RateDifferenceSchema = z.object({
  difference: z.number().min(-1).max(1),
  ci_low: z.number().min(-1).max(1),
  ci_high: z.number().min(-1).max(1),
  verdict: z.enum(["better", "worse", "within noise"]),
});

/** B against A: the pass-rate difference with its interval, and B's means minus A's. */
export const SideComparisonSchema = z.object({
  a: VariantSideSchema,
  b: VariantSideSchema,
  difference: RateDifferenceSchema,
  /** B − A of each mean known on both sides. */
  deltas: RunMetricsSchema,
});
export type SideComparison = z.infer<typeof SideComparisonSchema>;

/** A case that only one side ran. */
export const UnmatchedCaseSchema = z.object({
  suite: z.string().optional(),
  id: z.string(),
  name: z.string(),
});
export type UnmatchedCase = z.infer<typeof UnmatchedCaseSchema>;

export const CaseComparisonSchema = SideComparisonSchema.extend(UnmatchedCaseSchema.shape);
export type CaseComparison = z.infer<typeof CaseComparisonSchema>;

/** What a results file was: its run's name, commit and time. */
export const ComparedRunSchema = z.object({
  label: z.string(),
  suite: z.string(),
  finished_at: z.string(),
  git_commit: z.string().optional(),
  git_branch: z.string().optional(),
});
export type ComparedRun = z.infer<typeof ComparedRunSchema>;

export const COMPARISON_VERSION = 1;

/** `compareResults(a, b)` (what `evals compare --json` prints): the matched cases compared, overall, and the rest. */
export const ResultsComparisonSchema = z.object({
  version: z.literal(COMPARISON_VERSION),
  a: ComparedRunSchema,
  b: ComparedRunSchema,
  /** The cases both files hold (matched by suite and case id), in B's order. */
  cases: z.array(CaseComparisonSchema),
  /** Over the trials of every matched case, pooled. */
  overall: SideComparisonSchema,
  only_in_a: z.array(UnmatchedCaseSchema),
  only_in_b: z.array(UnmatchedCaseSchema),
});
export type ResultsComparison = z.infer<typeof ResultsComparisonSchema>;

export interface CompareResultsOptions {
  /** Names of the two sides in the table (default "A" and "B"). */
  labels?: [string, string];
}

/**
 * Compares two results files of the same cases run under two variants (with and without a skill,
 * two models, this branch and main): per case matched by suite and case id, and overall, the pass
 * rate of each with its 95% Wilson interval, the difference B − A with its 95% Newcombe interval (and
 * "within noise" when it contains 0), and B's mean turns, tool calls, tokens and duration minus A's.
 */
export function compareResults(
  a: ResultsFile,
  b: ResultsFile,
  options: CompareResultsOptions = {},
): ResultsComparison {
  const [labelA, labelB] = options.labels ?? ["A", "B"];
  const casesOfA = new Map(a.cases.map((c) => [caseKey(c), c]));
  const keysOfB = new Set(b.cases.map(caseKey));
  const cases: CaseComparison[] = [];
  const trialsA: TrialResult[] = [];
  const trialsB: TrialResult[] = [];
  for (const caseB of b.cases) {
    const caseA = casesOfA.get(caseKey(caseB));
    if (!caseA) continue;
    const countedA = countedTrials(caseA);
    const countedB = countedTrials(caseB);
    trialsA.push(...countedA);
    trialsB.push(...countedB);
    cases.push({ ...unmatched(caseB), ...compareTrials(countedA, countedB) });
  }
  return {
    version: COMPARISON_VERSION,
    a: comparedRun(a, labelA),
    b: comparedRun(b, labelB),
    cases,
    overall: compareTrials(trialsA, trialsB),
    only_in_a: a.cases.filter((c) => !keysOfB.has(caseKey(c))).map(unmatched),
    only_in_b: b.cases.filter((c) => !casesOfA.has(caseKey(c))).map(unmatched),
  };
}

function caseKey(c: Pick<CaseResult, "suite" | "id">): string {
  return JSON.stringify([c.suite ?? "", c.id]);
}

function unmatched(c: CaseResult): UnmatchedCase {
  return { ...(c.suite !== undefined ? { suite: c.suite } : {}), id: c.id, name: c.name };
}

function comparedRun(results: ResultsFile, label: string): ComparedRun {
  const { suite, finished_at, git_commit, git_branch } = results.meta;
  return {
    label,
    suite,
    finished_at,
    ...(git_commit !== undefined ? { git_commit } : {}),
    ...(git_branch !== undefined ? { git_branch } : {}),
  };
}

/**
 * The trials that count: those not skipped. A case that ran no trial (it errored before its first)
 * counts as one trial with the case's status.
 */
function countedTrials(c: CaseResult): TrialResult[] {
  if (c.status === "skipped") return [];
  const ran = c.trials.filter((trial) => trial.status !== "skipped");
  if (ran.length > 0) return ran;
  return [{ trial: 0, status: c.status, scores: [], violations: [], duration_ms: c.duration_ms }];
}

function compareTrials(trialsA: TrialResult[], trialsB: TrialResult[]): SideComparison {
  const a = side(trialsA);
  const b = side(trialsB);
  return { a, b, difference: compareRates(a, b), deltas: metricDeltas(a.metrics, b.metrics) };
}

function side(trials: TrialResult[]): VariantSide {
  const passed = trials.filter((trial) => trial.status === "passed").length;
  return { ...passRate(passed, trials.length), metrics: meanMetrics(trials) };
}

const METRICS = ["turns", "tool_calls", "tokens", "duration_ms"] as const;

/**
 * The mean of each metric every trial knows. A metric some trial lacks is left out: a results file
 * written with runs_included "failed" keeps the runs of failed cases only, and a mean over those
 * alone would compare failures with everything.
 */
function meanMetrics(trials: TrialResult[]): RunMetrics {
  const perTrial = trials.map(trialMetrics);
  const means: RunMetrics = {};
  for (const metric of METRICS) {
    const values = perTrial.map((m) => m[metric]);
    if (values.some((value) => value === undefined)) continue;
    const mean = meanOf(values);
    if (mean !== undefined) means[metric] = mean;
  }
  return means;
}

/** What one trial's run did; the run is in the file only when `runs_included` kept it. */
export function trialMetrics(trial: TrialResult): RunMetrics {
  const metrics: RunMetrics = {};
  if (trial.duration_ms !== undefined) metrics.duration_ms = trial.duration_ms;
  if (!trial.run) return metrics;
  const summary = runSummary(trial.run);
  if (summary.turns !== undefined) metrics.turns = summary.turns;
  if (summary.tokens) {
    const { input, output, cache_creation, cache_read } = summary.tokens;
    metrics.tokens = input + output + cache_creation + cache_read;
  }
  metrics.tool_calls = eventsOfType(trial.run, "tool_call").length;
  return metrics;
}

function metricDeltas(a: RunMetrics, b: RunMetrics): RunMetrics {
  const deltas: RunMetrics = {};
  for (const metric of METRICS) {
    const valueA = a[metric];
    const valueB = b[metric];
    if (valueA !== undefined && valueB !== undefined) deltas[metric] = valueB - valueA;
  }
  return deltas;
}

export interface ComparisonTableOptions {
  color?: boolean;
  /** Widest line (default 120; the case names are cut to fit, to no fewer than 24 characters). */
  width?: number;
}

/**
 * The comparison as a console table: one row per case and an overall row, with B − A and its
 * interval, the verdict, and the deltas; then the cases only one side ran.
 *
 *     A: find-todos (main 1a2b3c4)   B: find-todos (h-skill 5d6e7f8)
 *       case                      A                  B                 B − A  verdict       Δturns  Δtools  Δtokens  Δtime
 *       loads the skill, greps    3/3 100% [44–100]  0/3 0% [0–56]     −100% [−100…−21]  worse   −2.0    −1.0  −13,755  −1.4s
 *       runs grep in Bash         3/3 100% [44–100]  3/3 100% [44–100]  ±0% [−56…+56]  within noise  ±0.0  ±0.0   ±0  −2.1s
 *       overall (2 cases)         6/6 100% [61–100]  3/6 50% [19–81]    −50% [−81…−0]  worse   −1.0    −0.5   −6,878  −1.7s
 */
export function formatComparisonTable(
  comparison: ResultsComparison,
  options: ComparisonTableOptions = {},
): string {
  const p = palette(options.color ?? false);
  const width = Math.max(60, options.width ?? 120);
  const run = (r: ComparedRun) =>
    `${p.bold(`${r.label}:`)} ${r.suite}${r.git_branch || r.git_commit ? ` (${[r.git_branch, r.git_commit?.slice(0, 7)].filter(Boolean).join(" ")})` : ""}`;
  const lines = [`${run(comparison.a)}   ${run(comparison.b)}`];
  const paintVerdict: Record<ComparisonVerdict, (s: string) => string> = {
    better: p.green,
    worse: p.red,
    "within noise": p.gray,
  };
  const titles = [
    "case",
    comparison.a.label,
    comparison.b.label,
    `${comparison.b.label} − ${comparison.a.label}`,
  ];
  titles.push("verdict", "Δturns", "Δtools", "Δtokens", "Δtime");
  const align = ["left", "right", "right", "right", "left", "right", "right", "right", "right"] as const;
  const rowOf = (name: string, c: SideComparison) => [
    { text: name },
    { text: formatSide(c.a) },
    { text: formatSide(c.b) },
    { text: formatDifference(c.difference), paint: paintVerdict[c.difference.verdict] },
    { text: c.difference.verdict, paint: paintVerdict[c.difference.verdict] },
    ...METRICS.map((metric) => ({ text: formatMetricDelta(metric, c.deltas[metric]) })),
  ];
  // The suite names the case only when the files hold several suites.
  const suites = new Set(comparison.cases.map((c) => c.suite));
  const rows = comparison.cases.map((c) =>
    rowOf(suites.size > 1 && c.suite ? `${c.suite} › ${c.name}` : c.name, c),
  );
  rows.push(rowOf(`overall (${plural(comparison.cases.length, "case")})`, comparison.overall));
  const widths = titles.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => [...row[i]!.text].length)),
  );
  const gap = 2;
  const others = widths.reduce((sum, w, i) => (i === 0 ? sum : sum + w), 0) + gap * (titles.length - 1) + 2;
  widths[0] = Math.max(24, Math.min(widths[0]!, width - others));
  const line = (cells: { text: string; paint?: (s: string) => string }[]) =>
    `  ${cells
      .map((cell, i) => {
        const text = truncate(cell.text, widths[i]!);
        const padded = align[i] === "right" ? text.padStart(widths[i]!) : text.padEnd(widths[i]!);
        return cell.paint ? cell.paint(padded) : padded;
      })
      .join(" ".repeat(gap))
      .trimEnd()}`;
  lines.push(p.gray(line(titles.map((text) => ({ text })))));
  rows.forEach((row, i) => {
    lines.push(i === rows.length - 1 ? p.bold(line(row)) : line(row));
  });
  const list = (label: string, cases: UnmatchedCase[]) => {
    if (cases.length === 0) return;
    lines.push(
      p.yellow(
        `  only in ${label}: ${cases.map((c) => (c.suite ? `${c.suite} › ${c.id}` : c.id)).join(", ")}`,
      ),
    );
  };
  list(comparison.a.label, comparison.only_in_a);
  list(comparison.b.label, comparison.only_in_b);
  const unknown = [...comparison.cases, comparison.overall].some(
    (c) => c.deltas.turns === undefined || c.deltas.tokens === undefined,
  );
  if (unknown)
    lines.push(
      p.gray(
        '  –: not every trial\'s run is in the files (runs_included); write results with includeRuns "all" to compare turns, tool calls and tokens',
      ),
    );
  lines.push(
    p.gray(
      `  pass rates with 95% Wilson intervals; ${comparison.b.label} − ${comparison.a.label} with its 95% Newcombe interval: within noise when it contains 0`,
    ),
  );
  return `${lines.join("\n")}\n`;
}

/** "2/3 67% [21–94]". */
export function formatSide(side: PassRate): string {
  if (side.trials === 0) return "–";
  return `${side.passed}/${side.trials} ${formatPercent(side.rate)} [${percent(side.ci_low)}–${percent(side.ci_high)}]`;
}

/** "+67% [−5…+94]". */
export function formatDifference(difference: RateDifference): string {
  const bound = (rate: number) => signedPercent(rate).slice(0, -1);
  return `${signedPercent(difference.difference)} [${bound(difference.ci_low)}…${bound(difference.ci_high)}]`;
}

function percent(rate: number): string {
  return String(Math.round(rate * 100));
}

/** "+67%", "−5%", "±0%"; "−0%" for a difference below 0 that rounds to 0 (its sign is what counts). */
function signedPercent(rate: number): string {
  const sign = rate > 0 ? "+" : rate < 0 ? "−" : "±";
  return `${sign}${Math.abs(Math.round(rate * 100))}%`;
}

/** B − A of a run metric, as the comparison table and page show it: "+1.5" (turns, tool calls), "−13,755" (tokens), "+1.2s". */
export function formatMetricDelta(metric: keyof RunMetrics, value: number | undefined): string {
  return metric === "duration_ms"
    ? formatDurationDelta(value)
    : formatDelta(value, metric === "tokens" ? 0 : 1);
}

function formatDelta(value: number | undefined, digits: number): string {
  if (value === undefined) return "–";
  const rounded = Number(value.toFixed(digits));
  const sign = rounded > 0 ? "+" : rounded < 0 ? "−" : "±";
  return `${sign}${Math.abs(rounded).toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })}`;
}

function formatDurationDelta(ms: number | undefined): string {
  if (ms === undefined) return "–";
  const sign = ms > 0 ? "+" : ms < 0 ? "−" : "±";
  return `${sign}${formatDuration(Math.abs(ms))}`;
}
